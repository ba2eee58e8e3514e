// benchd-gui: the desktop client of `benchd serve`.
//
//   benchd-gui [--url URL] [--token-file FILE]
//
// Without options it connects to the remembered daemon, or to http://127.0.0.1:7878 with the
// token from the daemon's default token file.

#include "connection_settings.hpp"
#include "main_window.hpp"

#include <QApplication>
#include <QCommandLineParser>

int main(int argc, char** argv) {
  QApplication application(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("benchd"));
  QApplication::setApplicationName(QStringLiteral("benchd-gui"));
  QApplication::setApplicationVersion(QStringLiteral(BENCHD_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Desktop client of benchd serve: start runs, watch them live, read the "
                     "winners grid and the charts."));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption url_option(QStringLiteral("url"),
                                      QStringLiteral("The daemon's URL (default: the remembered "
                                                     "one, else http://127.0.0.1:7878)."),
                                      QStringLiteral("URL"));
  const QCommandLineOption token_option(
      QStringLiteral("token-file"),
      QStringLiteral("Read the bearer token from FILE (default: the daemon's token file)."),
      QStringLiteral("FILE"));
  parser.addOption(url_option);
  parser.addOption(token_option);
  parser.process(application);

  benchd::gui::ConnectionSettings settings = benchd::gui::ConnectionSettings::load();
  if (parser.isSet(url_option)) {
    settings.url = QUrl::fromUserInput(parser.value(url_option));
  }
  if (parser.isSet(token_option)) {
    const auto token = benchd::gui::readTokenFile(parser.value(token_option));
    if (!token) {
      qCritical("benchd-gui: cannot read a token from %s", qPrintable(parser.value(token_option)));
      return 2;
    }
    settings.token = *token;
  }
  benchd::gui::MainWindow window(settings);
  window.show();
  return QApplication::exec();
}

#include "connection_settings.hpp"

#include <benchd/common/state_folder.hpp>

#include <QFile>
#include <QSettings>

namespace benchd::gui {

const QUrl ConnectionSettings::kDefaultUrl(QStringLiteral("http://127.0.0.1:7878"));

QString defaultTokenFile() {
  return QString::fromStdString((common::defaultStateFolder() / "token").string());
}

std::optional<QString> readTokenFile(const QString& file) {
  QFile token(file);
  if (!token.open(QIODevice::ReadOnly)) {
    return std::nullopt;
  }
  const QString line = QString::fromUtf8(token.readLine(4096)).trimmed();
  if (line.isEmpty()) {
    return std::nullopt;
  }
  return line;
}

ConnectionSettings ConnectionSettings::load() {
  const QSettings settings;
  ConnectionSettings connection;
  connection.url = settings.value(QStringLiteral("connection/url"), kDefaultUrl).toUrl();
  connection.token = settings.value(QStringLiteral("connection/token")).toString();
  if (connection.token.isEmpty()) {
    connection.token = readTokenFile(defaultTokenFile()).value_or(QString());
  }
  return connection;
}

void ConnectionSettings::save() const {
  QSettings settings;
  settings.setValue(QStringLiteral("connection/url"), url);
  // A token the daemon's file already holds is read from there next time, not copied into
  // another file; one typed in is kept, readable by this user only.
  if (token == readTokenFile(defaultTokenFile()).value_or(QString())) {
    settings.remove(QStringLiteral("connection/token"));
  } else {
    settings.setValue(QStringLiteral("connection/token"), token);
  }
  settings.sync();
  QFile::setPermissions(settings.fileName(), QFileDevice::ReadOwner | QFileDevice::WriteOwner);
}

}  // namespace benchd::gui

#pragma once
// Where the daemon is and how to authenticate: remembered between sessions (QSettings, the
// user's config folder), with defaults that make a local daemon work without questions: the
// URL http://127.0.0.1:7878 (benchd serve's default) and the token read from the daemon's
// token file when this user may read it.

#include <QString>
#include <QUrl>
#include <optional>

namespace benchd::gui {

struct ConnectionSettings {
  QUrl url;
  QString token;

  static const QUrl kDefaultUrl;

  /// The remembered settings; for what was never set, the defaults above.
  static ConnectionSettings load();
  void save() const;
};

/// The daemon's default token file: `token` in benchd serve's default state folder
/// (common::defaultStateFolder: $STATE_DIRECTORY, else $XDG_STATE_HOME/benchd, else
/// ~/.local/state/benchd).
QString defaultTokenFile();

/// The first line of `file`, trimmed; nullopt when it cannot be read (absent, not ours).
std::optional<QString> readTokenFile(const QString& file);

}  // namespace benchd::gui

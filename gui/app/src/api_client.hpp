#pragma once
// The daemon's REST API as the desktop app calls it: one QNetworkAccessManager, the base URL
// and the bearer token, asynchronous calls whose answers come back on the GUI thread.
//
// Errors arrive as text a person can act on: the problem document's `detail` (RFC 9457, what
// the daemon says went wrong), or the network error with the URL ("connection refused: is
// benchd serve running on http://127.0.0.1:7878?"). A call that gets no answer within
// kCallTimeout fails with a timeout, so a hung daemon never freezes the window.

#include <QByteArray>
#include <QJsonDocument>
#include <QNetworkAccessManager>
#include <QObject>
#include <QString>
#include <QUrl>
#include <chrono>
#include <functional>

namespace benchd::gui {

struct ApiReply {
  int status = 0;   ///< HTTP status; 0 when no answer came (network error, timeout)
  QByteArray body;  ///< the raw answer
  QString error;    ///< empty on success (2xx); otherwise what went wrong, for people
  [[nodiscard]] bool ok() const { return error.isEmpty(); }
  [[nodiscard]] QJsonDocument json() const { return QJsonDocument::fromJson(body); }
};

class ApiClient : public QObject {
  Q_OBJECT

 public:
  static constexpr std::chrono::milliseconds kCallTimeout{10'000};
  using Callback = std::function<void(const ApiReply&)>;

  explicit ApiClient(QObject* parent = nullptr);

  void setEndpoint(const QUrl& base, const QString& token);
  [[nodiscard]] QUrl base() const { return base_; }
  [[nodiscard]] QString token() const { return token_; }
  [[nodiscard]] QNetworkAccessManager& network() { return network_; }

  /// `path` starts with "/api/v1/..." (or "/metrics"). `callback` runs on the GUI thread,
  /// exactly once, unless this client is destroyed first.
  void get(const QString& path, Callback callback, const QByteArray& accept = "application/json");
  void post(const QString& path, const QByteArray& json, Callback callback);
  void put(const QString& path, const QByteArray& body, const QByteArray& content_type,
           Callback callback);
  void remove(const QString& path, Callback callback);

  /// A request with the base URL and the token, for streams that manage their own reply.
  [[nodiscard]] QNetworkRequest request(const QString& path, const QByteArray& accept) const;

 signals:
  /// Every call that got no HTTP answer (true) or one (false); the window shows the state.
  void reachabilityChanged(bool reachable, const QString& reason);

 private:
  void send(const QByteArray& method, const QString& path, const QByteArray& body,
            const QByteArray& content_type, const QByteArray& accept, Callback callback);

  QNetworkAccessManager network_;
  QUrl base_;
  QString token_;
};

/// The text to show for a failed answer: the problem's `detail` (or `title`), else the status.
QString problemText(int status, const QByteArray& body);

}  // namespace benchd::gui

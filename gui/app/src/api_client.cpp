#include "api_client.hpp"

#include <QJsonObject>
#include <QNetworkReply>

namespace benchd::gui {

QString problemText(int status, const QByteArray& body) {
  const QJsonObject problem = QJsonDocument::fromJson(body).object();
  QString text = problem.value(QStringLiteral("detail")).toString();
  if (text.isEmpty()) {
    text = problem.value(QStringLiteral("title")).toString();
  }
  if (text.isEmpty()) {
    text = QString::fromUtf8(body.left(200)).trimmed();
  }
  return QStringLiteral("HTTP %1: %2")
      .arg(status)
      .arg(text.isEmpty() ? QStringLiteral("no detail") : text);
}

ApiClient::ApiClient(QObject* parent) : QObject(parent) {}

void ApiClient::setEndpoint(const QUrl& base, const QString& token) {
  base_ = base;
  token_ = token;
}

QNetworkRequest ApiClient::request(const QString& path, const QByteArray& accept) const {
  QUrl url = base_;
  const qsizetype query = path.indexOf('?');
  url.setPath(query < 0 ? path : path.left(query));
  url.setQuery(query < 0 ? QString() : path.mid(query + 1));
  QNetworkRequest request(url);
  request.setRawHeader("Accept", accept);
  if (!token_.isEmpty()) {
    request.setRawHeader("Authorization", "Bearer " + token_.toUtf8());
  }
  return request;
}

void ApiClient::get(const QString& path, Callback callback, const QByteArray& accept) {
  send("GET", path, {}, {}, accept, std::move(callback));
}

void ApiClient::post(const QString& path, const QByteArray& json, Callback callback) {
  send("POST", path, json, "application/json", "application/json", std::move(callback));
}

void ApiClient::put(const QString& path, const QByteArray& body, const QByteArray& content_type,
                    Callback callback) {
  send("PUT", path, body, content_type, "application/json", std::move(callback));
}

void ApiClient::remove(const QString& path, Callback callback) {
  send("DELETE", path, {}, {}, "application/json", std::move(callback));
}

void ApiClient::send(const QByteArray& method, const QString& path, const QByteArray& body,
                     const QByteArray& content_type, const QByteArray& accept, Callback callback) {
  QNetworkRequest request = this->request(path, accept);
  request.setTransferTimeout(static_cast<int>(kCallTimeout.count()));
  if (!content_type.isEmpty()) {
    request.setHeader(QNetworkRequest::ContentTypeHeader, content_type);
  }
  QNetworkReply* reply = network_.sendCustomRequest(request, method, body);
  const QUrl base = base_;
  connect(reply, &QNetworkReply::finished, this,
          [this, reply, base, callback = std::move(callback)] {
            reply->deleteLater();
            ApiReply answer;
            answer.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            answer.body = reply->readAll();
            if (answer.status == 0) {
              const QString reason =
                  reply->error() == QNetworkReply::OperationCanceledError
                      ? QStringLiteral("no answer within %1 s").arg(kCallTimeout.count() / 1000)
                      : reply->errorString();
              answer.error = QStringLiteral("%1 (is benchd serve running on %2?)")
                                 .arg(reason, base.toString(QUrl::RemovePath));
              emit reachabilityChanged(false, answer.error);
            } else {
              emit reachabilityChanged(true, QString());
              if (answer.status < 200 || answer.status >= 300) {
                answer.error = problemText(answer.status, answer.body);
              }
            }
            callback(answer);
          });
}

}  // namespace benchd::gui

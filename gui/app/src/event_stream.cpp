#include "event_stream.hpp"

#include "api_client.hpp"

#include <QJsonDocument>
#include <QNetworkReply>
#include <algorithm>

namespace benchd::gui {

EventStream::EventStream(ApiClient& api, QObject* parent) : QObject(parent), api_(api) {
  silence_.setSingleShot(true);
  silence_.setInterval(static_cast<int>(kSilenceLimit.count()));
  connect(&silence_, &QTimer::timeout, this, [this] {
    if (reply_ != nullptr) {
      reply_->abort();  // onFinished schedules the retry
    }
  });
  retry_.setSingleShot(true);
  connect(&retry_, &QTimer::timeout, this, &EventStream::connectNow);
}

EventStream::~EventStream() {
  stop();
}

void EventStream::follow(std::int64_t run, std::uint64_t after) {
  stop();
  run_ = run;
  last_id_ = after;
  failures_ = 0;
  connectNow();
}

void EventStream::stop() {
  run_ = 0;
  retry_.stop();
  silence_.stop();
  if (reply_ != nullptr) {
    QNetworkReply* reply = reply_;
    reply_ = nullptr;  // onFinished sees a stopped stream
    reply->disconnect(this);
    reply->abort();
    reply->deleteLater();
  }
}

void EventStream::connectNow() {
  if (run_ == 0) {
    return;
  }
  buffer_.clear();
  event_type_.clear();
  event_data_.clear();
  event_id_.clear();
  QNetworkRequest request =
      api_.request(QStringLiteral("/api/v1/runs/%1/events").arg(run_), "text/event-stream");
  if (last_id_ > 0) {
    request.setRawHeader("Last-Event-ID", QByteArray::number(static_cast<qulonglong>(last_id_)));
  }
  request.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
  reply_ = api_.network().get(request);
  connect(reply_, &QNetworkReply::readyRead, this, &EventStream::onData);
  connect(reply_, &QNetworkReply::finished, this, &EventStream::onFinished);
  silence_.start();
}

void EventStream::onData() {
  if (reply_ == nullptr) {
    return;
  }
  silence_.start();
  if (interrupted_) {
    interrupted_ = false;
    failures_ = 0;
    emit resumed();
  }
  buffer_.append(reply_->readAll());
  for (qsizetype end = buffer_.indexOf('\n'); end >= 0; end = buffer_.indexOf('\n')) {
    QByteArray line = buffer_.left(end);
    buffer_.remove(0, end + 1);
    if (line.endsWith('\r')) {
      line.chop(1);
    }
    if (line.isEmpty()) {
      dispatch();
      if (run_ == 0) {
        return;  // the end event stopped the stream
      }
      continue;
    }
    if (line.startsWith(':')) {
      continue;  // heartbeat
    }
    const qsizetype colon = line.indexOf(':');
    const QByteArray field = colon < 0 ? line : line.left(colon);
    QByteArray value = colon < 0 ? QByteArray() : line.mid(colon + 1);
    if (value.startsWith(' ')) {
      value.remove(0, 1);
    }
    if (field == "event") {
      event_type_ = QString::fromUtf8(value);
    } else if (field == "data") {
      if (!event_data_.isEmpty()) {
        event_data_.append('\n');
      }
      event_data_.append(value);
    } else if (field == "id") {
      event_id_ = value;
    }
  }
}

void EventStream::dispatch() {
  if (!event_id_.isEmpty()) {
    bool number = false;
    const qulonglong id = event_id_.toULongLong(&number);
    if (number) {
      last_id_ = std::max<std::uint64_t>(last_id_, id);
    }
  }
  const QString type = event_type_.isEmpty() ? QStringLiteral("message") : event_type_;
  const QJsonObject data = QJsonDocument::fromJson(event_data_).object();
  const bool had_data = !event_data_.isEmpty();
  event_type_.clear();
  event_data_.clear();
  event_id_.clear();
  if (!had_data) {
    return;
  }
  if (type == QLatin1String("end")) {
    stop();  // nothing follows an end; a reconnect would only replay it
  }
  emit received(type, data);
}

void EventStream::onFinished() {
  auto* reply = qobject_cast<QNetworkReply*>(sender());
  if (reply == nullptr || reply != reply_) {
    return;
  }
  reply_ = nullptr;
  reply->deleteLater();
  silence_.stop();
  if (run_ == 0) {
    return;
  }
  const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
  if (status >= 400 && status != 503) {
    // 401/404: resuming cannot help; say so and give up on this run.
    const QString reason = problemText(status, reply->readAll());
    run_ = 0;
    emit interrupted(reason);
    return;
  }
  scheduleRetry(status == 0 ? reply->errorString()
                            : QStringLiteral("the stream ended (HTTP %1)").arg(status));
}

void EventStream::scheduleRetry(const QString& reason) {
  ++failures_;
  interrupted_ = true;
  const auto pause = std::min<std::chrono::milliseconds>(
      kMaxRetryPause, std::chrono::milliseconds(250) * (1 << std::min(failures_, 5)));
  emit interrupted(QStringLiteral("%1; reconnecting in %2 s")
                       .arg(reason)
                       .arg(static_cast<double>(pause.count()) / 1000.0, 0, 'f', 1));
  retry_.start(static_cast<int>(pause.count()));
}

}  // namespace benchd::gui

#pragma once
// A run's live events (GET /api/v1/runs/{id}/events, Server-Sent Events) for the window.
//
// Parses the stream as the SSE standard says (id/event/data lines, a blank line ends an event,
// ':' lines are heartbeats) and resumes where it left off: when the connection drops, or stays
// silent for kSilenceLimit (the daemon sends a heartbeat every 15 s), it reconnects after a
// short, growing pause with `Last-Event-ID`, so the daemon replays what was missed from its
// store; no event is lost or repeated. It stops for good after the `end` event or stop().
// GUI thread only.

#include <QByteArray>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QTimer>
#include <chrono>
#include <cstdint>

class QNetworkReply;

namespace benchd::gui {

class ApiClient;

class EventStream : public QObject {
  Q_OBJECT

 public:
  static constexpr std::chrono::milliseconds kSilenceLimit{40'000};
  static constexpr std::chrono::milliseconds kMaxRetryPause{5'000};

  EventStream(ApiClient& api, QObject* parent = nullptr);
  ~EventStream() override;
  EventStream(const EventStream&) = delete;
  EventStream& operator=(const EventStream&) = delete;

  /// Follows run `run` from after event `after` (0: from its first event).
  void follow(std::int64_t run, std::uint64_t after = 0);
  void stop();
  [[nodiscard]] std::int64_t run() const { return run_; }
  [[nodiscard]] std::uint64_t lastEventId() const { return last_id_; }
  [[nodiscard]] bool following() const { return run_ != 0; }

 signals:
  /// One event: its type ("phase", "snapshot", "row", "end") and JSON payload.
  void received(const QString& type, const QJsonObject& data);
  /// The stream dropped and will be resumed (`reason` says why), or was resumed.
  void interrupted(const QString& reason);
  void resumed();

 private:
  void connectNow();
  void onData();
  void onFinished();
  void dispatch();
  void scheduleRetry(const QString& reason);

  ApiClient& api_;
  QNetworkReply* reply_ = nullptr;
  QTimer silence_;
  QTimer retry_;
  std::int64_t run_ = 0;
  std::uint64_t last_id_ = 0;
  int failures_ = 0;
  bool interrupted_ = false;
  QByteArray buffer_;
  QString event_type_;
  QByteArray event_data_;
  QByteArray event_id_;
};

}  // namespace benchd::gui

#pragma once
// benchd-gui's window: a client of the daemon's REST API only (it never opens the store).
//
//   left:    RunPanel (approaches, scenario file and its rows, upload, start / stop)
//   tabs:    Live (LiveView), Winners (the followed or chosen run's grid), Runs (RunsView),
//            Results (ResultsView: charts from stored seconds, compare two runs)
//   bottom:  the daemon's state ("connected to …", or why it cannot be reached and that it
//            keeps trying) and the last message; errors from the daemon are shown here and in
//            a bar above the tabs, never only on the console.
//
// Every call is asynchronous, so a slow or absent daemon never freezes the window. A poll
// (kPollInterval) refreshes the run list and notices the daemon coming back; a run that is
// running when the window connects is followed at once, from its first event.

#include "connection_settings.hpp"

#include <QMainWindow>
#include <QTimer>
#include <chrono>
#include <cstdint>

class QLabel;
class QTabWidget;

namespace benchd::charts {
class WinnersGridView;
}

namespace benchd::gui {

class ApiClient;
class EventStream;
class LiveView;
class ResultsView;
class RunPanel;
class RunsView;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  static constexpr std::chrono::milliseconds kPollInterval{2'000};

  explicit MainWindow(ConnectionSettings settings, QWidget* parent = nullptr);
  ~MainWindow() override;
  MainWindow(const MainWindow&) = delete;
  MainWindow& operator=(const MainWindow&) = delete;

  /// Points the window at another daemon (and remembers it when `remember`).
  void connectTo(const ConnectionSettings& settings, bool remember);
  [[nodiscard]] bool reachable() const { return reachable_; }
  [[nodiscard]] QString connectionText() const;
  [[nodiscard]] QString lastMessage() const;
  [[nodiscard]] std::int64_t followedRun() const { return followed_run_; }
  [[nodiscard]] charts::WinnersGridView& winners() const { return *winners_; }

 private:
  void poll();
  void follow(std::int64_t run);
  void onEvent(const QString& type, const QJsonObject& payload);
  void loadWinners(std::int64_t run);
  void showMessage(const QString& text, bool error);
  void setReachable(bool reachable, const QString& reason);
  void editConnection();

  ConnectionSettings settings_;
  ApiClient* api_ = nullptr;
  EventStream* events_ = nullptr;
  RunPanel* run_panel_ = nullptr;
  LiveView* live_ = nullptr;
  charts::WinnersGridView* winners_ = nullptr;
  QLabel* winners_caption_ = nullptr;
  RunsView* runs_ = nullptr;
  ResultsView* results_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  QLabel* message_bar_ = nullptr;
  QLabel* connection_ = nullptr;
  QTimer poll_;
  bool reachable_ = false;
  bool ever_reached_ = false;
  std::int64_t followed_run_ = 0;
  std::int64_t winners_run_ = 0;
};

}  // namespace benchd::gui

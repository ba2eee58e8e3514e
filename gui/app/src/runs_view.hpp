#pragma once
// The queue and the past runs, newest first, refreshed by the window's poll: status, scenario
// file, approaches, times and errors. From here a run is followed live, opened in the results
// browser, or deleted (finished runs only; the daemon refuses the others and says why).

#include <QJsonObject>
#include <QWidget>
#include <cstdint>

class QTableWidget;

namespace benchd::gui {

class ApiClient;

class RunsView : public QWidget {
  Q_OBJECT

 public:
  RunsView(ApiClient& api, QWidget* parent = nullptr);

  /// Shows the `runs` document (GET /api/v1/runs); keeps the selection.
  void show(const QJsonObject& runs);
  [[nodiscard]] std::int64_t selectedRun() const;

 signals:
  void followRequested(std::int64_t run);
  void resultsRequested(std::int64_t run);
  void deleted(std::int64_t run);
  void message(const QString& text, bool error);

 private:
  ApiClient& api_;
  QTableWidget* table_ = nullptr;
};

}  // namespace benchd::gui

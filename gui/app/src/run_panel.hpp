#pragma once
// The left side of the window: what to run. The approaches the daemon accepted (checkable,
// with version and description), the scenario files with the chosen file's rows, an upload
// button, optional warm-up/test overrides, and Start / Stop. It asks the daemon for its lists
// when told to refresh(); it starts runs through the API and says what the daemon answered.

#include <QJsonObject>
#include <QWidget>
#include <cstdint>

class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace benchd::gui {

class ApiClient;

class RunPanel : public QWidget {
  Q_OBJECT

 public:
  RunPanel(ApiClient& api, QWidget* parent = nullptr);

  /// Reloads the approaches and the scenario files.
  void refresh();
  /// Whether a run of ours is active (enables Stop).
  void setActiveRun(std::int64_t run);
  /// Uploads the scenario file at `path` under its file name (what Upload… does after its
  /// dialog); the daemon checks it and the outcome arrives as a message.
  void uploadFile(const QString& path);

 signals:
  /// The daemon accepted a run (the answer's Run document).
  void runStarted(std::int64_t run, const QJsonObject& document);
  /// Something the user should read (errors from the daemon included).
  void message(const QString& text, bool error);

 private:
  void loadApproaches();
  void loadScenarioFiles(const QString& select = {});
  void showRows(const QString& name);
  void start();
  void stop();
  void upload();

  ApiClient& api_;
  QListWidget* approaches_ = nullptr;
  QComboBox* files_ = nullptr;
  QTableWidget* rows_ = nullptr;
  QSpinBox* warmup_ = nullptr;
  QSpinBox* test_ = nullptr;
  QSpinBox* repeat_ = nullptr;      ///< runs per (row, approach)
  QSpinBox* memory_cap_ = nullptr;  ///< MiB per worker; 0: none
  QPushButton* start_ = nullptr;
  QPushButton* stop_ = nullptr;
  QLabel* status_ = nullptr;
  std::int64_t active_run_ = 0;
};

}  // namespace benchd::gui

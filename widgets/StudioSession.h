#pragma once
/// \file StudioSession: the one object the studio's panels share. It owns the open model, the
/// traced graph (with the user's leaf/expand overrides), the steppable lowering and the
/// selection, the model's input specs (the Inputs table the interpreter and Export share,
/// remembered per model), runs long jobs off the UI thread, and tells every panel what changed
/// through signals. Panels never talk to each other: they observe the session and call its slots.
///
/// The model is traced once per open and once per change of the leaf overrides; the lowering
/// runs on that same graph (it borrows it, PreparedLowering::graph), so a node of graph() is the
/// node the interpreter executes and holds a value for. The lowering is reset before the graph
/// is replaced.
///
/// Threading: openModel() loads and traces on a worker thread (QtConcurrent); everything else
/// runs on the UI thread. Stepping one node is fast; a long run (continueRun, runToNode) runs in
/// slices of about runSliceBudget() ms, one per event-loop turn, so the window stays responsive
/// and the panels refresh once per slice. Accessors return nullptr while nothing is loaded.
///
/// Files on disk: the session watches the files the model was read from (modelWatcher()) and
/// reloadModel() reads them again, keeping the breakpoints, leaf overrides, selection, input
/// specs and run inputs that still apply. What the session shows never depends on the files
/// staying as they were: a model's weights are read into memory when it opens.

#include "lowering/Lowering.h"
#include "model/torchscript/Checkpoint.h"
#include "model/Model.h"
#include "trace/Tracer.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QFileSystemWatcher;
class QTimer;
class QUndoStack;

namespace lattice::studio {

class InputSpecsCommand;

/// Watches the files a document was read from (a model, an artifact) and says, once the writes
/// to them have settled, that they are no longer what was read. QFileSystemWatcher watches each
/// file, its folder and the folder above: a program that replaces a file or a whole artifact
/// folder by a rename (an atomic save) leaves the old watches on the old inodes, so every check
/// adds the paths again. Every event restarts a settle timer (a training script writing a large
/// file makes one report, not hundreds); when it fires, each file's identity (device, inode),
/// size and modification and change times are compared with the state recorded before it was
/// read. A file that did not exist counts as changed once it does.
class FileChangeWatcher : public QObject {
  Q_OBJECT

public:
  /// One file's identity, size and times (exists false: no such file).
  struct FileState {
    bool exists = false;
    quint64 device = 0;
    quint64 inode = 0;
    qint64 size = -1;
    qint64 modifiedNs = 0;
    qint64 changedNs = 0;
    bool operator==(const FileState& o) const {
      return exists == o.exists && device == o.device && inode == o.inode && size == o.size &&
             modifiedNs == o.modifiedNs && changedNs == o.changedNs;
    }
    bool operator!=(const FileState& o) const { return !(*this == o); }
  };
  /// The state of a set of files at one moment: taken before they are read, so a write while
  /// they are read shows as a change afterwards.
  struct Snapshot {
    QStringList files;
    std::vector<FileState> states;
  };
  static FileState stateOf(const QString& file);
  static Snapshot snapshot(const QStringList& files);

  explicit FileChangeWatcher(QObject* parent = nullptr);

  /// Watches `read.files` (absolute paths), comparing them with `read.states` from now on; no
  /// change is pending afterwards until the check this schedules (after the settle time) finds a
  /// file written while it was read. An empty snapshot watches nothing.
  void watch(const Snapshot& read);
  void watch(const QStringList& files) { watch(snapshot(files)); }
  /// Adds `file`, as it is now (nothing when already watched).
  void addFile(const QString& file);
  QStringList files() const { return m_read.files; }
  /// Takes the files as they are now for what was read (Ignore): no change is pending.
  void acceptCurrent();
  /// The watched files that differ from what was read, checked now.
  QStringList changedFiles() const;
  /// True from a changed() with files until acceptCurrent() or watch().
  bool hasPendingChange() const { return !m_reported.empty(); }
  /// How long no event may touch the files before a change is reported (ms, default 400).
  int settleTime() const;
  void setSettleTime(int ms);
  /// Compares the files now and reports a change not reported yet (the settle timer calls it).
  void check();

Q_SIGNALS:
  /// `files` differ from what was read and no event touched them for settleTime(). Emitted
  /// again when they change further; with an empty list when they are back to what was read.
  void changed(const QStringList& files);

private:
  /// Adds the files, their folders and the folders above to the watcher where it lost them.
  void rewatch();
  std::vector<FileState> currentStates() const;

  QFileSystemWatcher* m_watcher;
  QTimer* m_settle;
  Snapshot m_read;
  std::vector<FileState> m_reported; ///< the states last reported as changed; empty when none
  QHash<QString, quint64> m_watchedInodes; ///< the inode each watched path had when added
};

class StudioSession : public QObject {
  Q_OBJECT

public:
  enum class InterpreterState { NotStarted, Paused, Finished, Failed };
  Q_ENUM(InterpreterState)

  explicit StudioSession(QObject* parent = nullptr);
  ~StudioSession() override;

  // --- model and trace ------------------------------------------------------------------------

  /// What was opened ("example:sparse_resunet42" or an .ltfx path); empty when nothing is.
  QString modelReference() const { return m_reference; }
  const Model* model() const { return m_model.get(); }
  /// The traced graph; nullptr when nothing is loaded or tracing failed.
  const fx::Graph* graph() const { return m_graph.get(); }
  const LatticeTracer& tracer() const { return m_tracer; }
  /// True while openModel() works in the background.
  bool isLoading() const { return m_loading; }

  /// The files the open model was read from, watched by modelWatcher(): an archive's
  /// model.json, weights and recordings (absent ones too), a TorchScript file, a checkpoint
  /// loaded into the model. Empty for a built-in example.
  QStringList modelFiles() const;
  /// Reports (changed) when modelFiles() are no longer what was read.
  FileChangeWatcher* modelWatcher() const { return m_watcher; }
  /// True from reloadModel() until its result's signals are all emitted (modelLoaded ...
  /// modelReloaded, or modelLoadFailed): observers keep what is theirs to keep across it (the
  /// leaf undo stack) and tell a failed reload from a failed open.
  bool isReloading() const { return m_reload != nullptr; }

  /// Effective leaf decision for a module path (override, else the lattice policy).
  bool isLeaf(const QString& modulePath) const;
  /// Sets (or with nullopt clears) a leaf override and re-traces; emits graphChanged or
  /// traceFailed. The interpreter is reset.
  void setLeafOverride(const QString& modulePath, std::optional<bool> leaf);

  // --- lowering / interpreter -----------------------------------------------------------------

  /// Options used by the interpreter and by export (defaults: the archive's hints). Their
  /// `inputs` are always inputSpecs().
  const ExportOptions& exportOptions() const { return m_exportOptions; }
  /// Replaces the options; `options.inputs`, when set, replaces inputSpecs() (undoable).
  void setExportOptions(const ExportOptions& options);

  // --- inputs ---------------------------------------------------------------

  /// The model's input specs, one per exposed forward input in order: the one list the
  /// interpreter (F5) and File ▸ Export both use, edited in the Inputs table. It starts as the
  /// archive's example inputs (none for a TorchScript file), or as the list last used for this
  /// model (QSettings group inputSettingsGroup(), keyed by the model's path or example name).
  const std::vector<InputSpec>& inputSpecs() const { return m_inputs; }
  /// Replaces the list: one step of inputUndoStack() (`description` names it), remembered for
  /// the model (forgotten again when it equals the archive's), the interpreter reset, then
  /// inputSpecsChanged. Nothing when `specs` equals the current list.
  void setInputSpecs(std::vector<InputSpec> specs, const QString& description = QString());
  /// Back to the archive's example inputs (undoable).
  void resetInputSpecs();
  /// The archive's example inputs (empty for a TorchScript model, or when nothing is open).
  const std::vector<InputSpec>& archiveInputSpecs() const;
  /// True when inputSpecs() differs from archiveInputSpecs().
  bool inputSpecsEdited() const;
  /// The root forward's positional parameter names: the ABI names the specs take, in order.
  QStringList forwardInputNames() const;
  /// Undo/redo of input edits (cleared when a model opens).
  QUndoStack* inputUndoStack() const { return m_inputUndo; }
  /// The QSettings group under which the inputs of `reference` are remembered
  /// ("inputs/<hash of the canonical path or the example name>").
  static QString inputSettingsGroup(const QString& reference);

  InterpreterState interpreterState() const { return m_state; }
  /// The prepared lowering (builder, interpreter); nullptr before start. Its graph is graph()
  /// (nullptr on the direct path).
  const PreparedLowering* lowering() const { return m_lowering.get(); }
  /// The next node to execute; empty when not started or finished. On the direct path (a root
  /// module with its own lowering, no graph) it is the direct lowering's name until it ran.
  QString currentNode() const;
  /// Names of the nodes executed since the interpreter started, in execution order. Runs
  /// (continueRun, runToNode) emit interpreterStepped once per slice, for the slice's last node:
  /// panels listing executed nodes append what this list holds beyond their rows.
  const QStringList& executedNodes() const { return m_executed; }
  /// The node that failed and the message (state Failed).
  QString failedNode() const { return m_failedNode; }
  QString lastError() const { return m_lastError; }
  const QSet<QString>& breakpoints() const { return m_breakpoints; }
  /// Nodes the interpreter runs in all (the lowering graph's size, 1 on the direct path); 0
  /// before start.
  int totalNodes() const;

  /// True while continueRun / runToNode goes on from the event loop (between slices).
  bool isRunning() const { return m_running; }
  /// Wall-clock budget of one run slice in ms (default 15). A slice executes at least one node
  /// and then stops stepping once the budget is spent; 0 makes every slice one node (tests).
  int runSliceBudget() const { return m_sliceBudgetMs; }
  void setRunSliceBudget(int ms) { m_sliceBudgetMs = ms < 0 ? 0 : ms; }

  // --- weights (File ▸ Load Weights…) and exports ----------------------------------

  /// The checkpoint file whose tensors replaced the model's; empty while the model has its own
  /// (cleared when another model opens).
  QString weightsSource() const { return m_weightsSource; }
  /// The last applyWeights report (meaningful when weightsSource() is not empty).
  const CheckpointReport& weightsReport() const { return m_weightsReport; }
  /// Compares `checkpoint` with the open model without changing anything (an empty report
  /// when no model is open).
  CheckpointReport compareWeights(const Checkpoint& checkpoint) const;
  /// Replaces the model's tensors by the checkpoint's matching ones (applyCheckpoint; refused
  /// when not clean unless `allowPartial`). On success the interpreter is reset (the next step
  /// and every export use the new weights) and weightsLoaded is emitted; on failure the model
  /// is unchanged.
  Expected<CheckpointReport> applyWeights(const Checkpoint& checkpoint, bool allowPartial);
  /// readCheckpoint + applyWeights, on the calling thread.
  Expected<CheckpointReport> loadWeights(const QString& path, bool allowPartial);

  /// Artifact directories exported in this session, newest first.
  const QStringList& exportedArtifacts() const { return m_exports; }
  /// The newest of them; empty when nothing was exported.
  QString lastExport() const { return m_exports.value(0); }
  /// Records a successful export (the export dialog and the built-in export call it).
  void recordExport(const QString& directory);

  // --- selection ------------------------------------------------------------------------------

  /// The selected FX node name (empty for none).
  QString selectedNode() const { return m_selectedNode; }
  /// The selected module path: "" for the root module or for none (see hasModuleSelection).
  QString selectedModule() const { return m_selectedModule; }
  /// True when a module (possibly the root) is selected.
  bool hasModuleSelection() const { return m_moduleSelected; }

public Q_SLOTS:
  /// Loads `reference` (path or example:NAME) and traces it in the background. A newer call
  /// supersedes an older one (its result is dropped). Emits modelLoadStarted, then modelLoaded
  /// or modelLoadFailed.
  void openModel(const QString& reference);
  /// Cancels a running load (its result is dropped).
  void cancelLoad();
  /// Reads the open model again (File ▸ Reload), in the background as openModel() does, and
  /// keeps what still applies: leaf overrides of modules that still exist (the graph is traced
  /// with them), breakpoints and the selected node where their nodes still exist, the selected
  /// module, the input specs and run inputs (remembered per model), and a loaded checkpoint (read
  /// again from its file and applied as before). The leaf undo stack is kept. Emits
  /// modelLoadStarted, then modelLoaded ... modelReloaded(summary), or modelLoadFailed (the model
  /// shown stays, whole: its weights are in memory). Nothing when no model is open.
  void reloadModel();

  /// (Re)starts the interpreter on the current graph with exportOptions(); emits
  /// interpreterReset (or interpreterFailed when the lowering cannot be prepared).
  void startInterpreter();
  /// Executes one node; emits interpreterStepped / interpreterFinished / interpreterFailed.
  void step();
  /// Runs until a breakpoint node becomes current (after at least one step), the end, or an error.
  /// The first slice runs at once; when it does not end the run, the rest runs a slice per
  /// event-loop turn (runningChanged(true), interpreterStepped per slice, runningChanged(false)
  /// after the final interpreterStepped / interpreterFinished / interpreterFailed).
  void continueRun();
  /// Runs until `nodeName` is the current node (not executed), in slices as continueRun does.
  void runToNode(const QString& nodeName);
  /// Ends a run at the current slice boundary: the interpreter stays paused before the next
  /// node (the panels already show the last slice) and runningChanged(false) is emitted.
  /// Nothing when no run is going on.
  void interruptRun();
  /// While a run goes on: interruptRun(). Otherwise drops the interpreter state (state
  /// NotStarted) and emits interpreterReset.
  void stopInterpreter();
  void toggleBreakpoint(const QString& nodeName);

  void selectNode(const QString& nodeName);
  /// Selects the module at `modulePath`; "" is the root module.
  void selectModule(const QString& modulePath);
  /// No module selected (selectedModule() is then "" and hasModuleSelection() false).
  void clearModuleSelection();

Q_SIGNALS:
  /// The model, its graph, the tracer or the model's weights are about to change (or the session
  /// to go): whoever reads them on another thread stops and waits now (NumericRun's prepare job).
  void aboutToChange();
  void modelLoadStarted(const QString& reference);
  void modelLoaded();
  void modelLoadFailed(const QString& message);
  /// cancelLoad() dropped the load of `reference`.
  void modelLoadCancelled(const QString& reference);
  /// The traced graph changed (new model or new leaf overrides).
  void graphChanged();
  void traceFailed(const QString& message);
  /// setExportOptions changed the options (the interpreter was reset).
  void exportOptionsChanged();
  /// inputSpecs() changed: an edit, its undo or redo, or a model opened (the interpreter was
  /// reset).
  void inputSpecsChanged();
  void interpreterReset();
  void interpreterStepped(const QString& executedNode);
  void interpreterFinished();
  void interpreterFailed(const QString& nodeName, const QString& message);
  void breakpointsChanged();
  /// reloadModel() replaced the model: `summary` says what it is now and what was kept ("9 nodes
  /// (were 17); kept 1 of 2 breakpoints; ...").
  void modelReloaded(const QString& summary);
  /// A run (continueRun / runToNode) went on beyond its first slice (true), or ended (false).
  void runningChanged(bool running);
  void selectionChanged(const QString& nodeName);
  /// The module selection changed: `modulePath` is "" both for the root and for none (check
  /// hasModuleSelection()).
  void moduleSelectionChanged(const QString& modulePath);
  /// applyWeights replaced the model's tensors with those of `source`.
  void weightsLoaded(const QString& source);
  /// recordExport: an artifact was written to `directory`.
  void artifactExported(const QString& directory);

private:
  friend class InputSpecsCommand;
  struct LoadResult;
  /// What a reload keeps: taken when it starts, applied to its result.
  struct ReloadState;
  /// What a load reads besides the model: the leaf overrides to trace with (a reload's; those of
  /// modules the model no longer has are left out) and a checkpoint to apply first.
  struct LoadRequest {
    QString reference;
    std::map<std::string, bool> overrides;
    QString checkpoint;
    bool checkpointPartial = false;
  };
  /// Runs on a worker thread: loads the model, applies the checkpoint and traces it.
  static std::shared_ptr<LoadResult> loadAndTrace(const LoadRequest& request);
  /// Starts a load (openModel, reloadModel).
  void startLoad(const LoadRequest& request);
  void applyLoad(quint64 generation, const std::shared_ptr<LoadResult>& result);
  /// The files of `reference` (and of a checkpoint) modelFiles() lists.
  static QStringList filesOf(const QString& reference, const QString& checkpoint);
  void retrace();
  /// Sets the list (no undo step), keeps exportOptions().inputs equal, remembers it, resets
  /// the interpreter and emits inputSpecsChanged.
  void applyInputSpecs(std::vector<InputSpec> specs);
  /// The list for a model that just opened: the remembered one, else the archive's.
  std::vector<InputSpec> restoredInputSpecs() const;
  void rememberInputSpecs() const;
  /// F5 without any input: what to do about it.
  QString noInputsMessage() const;
  void resetInterpreter(bool notify);
  bool ensureStarted();
  /// Executes one node without emitting; false when the run must stop (end or error).
  bool stepOnce();
  void fail(const QString& nodeName, const QString& message);
  void finishStep(const QString& executed);
  /// Runs the first slice of a run towards `target` (empty: breakpoints and the end) and, when
  /// the run is not over, schedules the rest.
  void beginRun(const QString& target);
  /// Executes nodes until the run is over or the slice budget is spent; true when over.
  bool runSlice();
  /// Posts the next slice behind the pending events.
  void scheduleSlice();
  /// A posted slice: runSlice, then the per-slice or final signals.
  void onRunSlice();
  /// Ends the run (runningChanged(false)) without other signals; resets and restarts call it.
  void cancelRun();

  QString m_reference;
  std::unique_ptr<Model> m_model;
  std::unique_ptr<fx::Graph> m_graph;
  LatticeTracer m_tracer;
  bool m_loading = false;
  quint64 m_loadGeneration = 0;

  ExportOptions m_exportOptions;
  std::vector<InputSpec> m_inputs;
  QUndoStack* m_inputUndo;
  std::unique_ptr<PreparedLowering> m_lowering; // borrows m_graph (declared before it)
  InterpreterState m_state = InterpreterState::NotStarted;
  QString m_failedNode;
  QString m_lastError;
  QSet<QString> m_breakpoints;
  QStringList m_executed;

  bool m_running = false;
  quint64 m_runGeneration = 0; ///< bumped when a run ends: its queued slice is dropped
  QString m_runTarget;         ///< runToNode's node; empty for continueRun
  int m_sliceBudgetMs = 15;

  QString m_selectedNode;
  QString m_selectedModule;
  bool m_moduleSelected = false;

  QString m_weightsSource;
  CheckpointReport m_weightsReport;
  bool m_weightsPartial = false; ///< the checkpoint was applied with allowPartial
  QStringList m_exports;

  FileChangeWatcher* m_watcher;
  FileChangeWatcher::Snapshot m_loadSnapshot; ///< the files of the running load, before it read them
  std::unique_ptr<ReloadState> m_reload;      ///< set while a reload runs
};

} // namespace lattice::studio

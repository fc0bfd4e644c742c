#pragma once
/// \file StudioSession: the one object the studio's panels share, a facade over its parts
/// (widgets/session/): ModelTrace (the open model, the tracer with the user's leaf/expand
/// overrides and the traced graph), SessionInputs (the model's input specs, remembered per model,
/// with the export options), SteppingDriver (the steppable lowering, breakpoints, runs in
/// slices), and the document's undo stack (leaf toggles and input edits). It also holds the
/// selection and the session's exports, loads models off the UI thread, and tells every panel
/// what changed through signals. Panels never talk to each other: they observe the session and
/// call its slots.
///
/// The model is traced once per open and once per change of the leaf overrides; the lowering
/// runs on that same graph (it borrows it, PreparedLowering::graph), so a node of graph() is the
/// node the interpreter executes and holds a value for. The lowering is reset before the graph
/// is replaced.
///
/// Threading: openModel() loads and traces on a worker thread (QtConcurrent); everything else
/// runs on the UI thread. A job on another thread reads a snapshot() (ModelSnapshot), never the
/// live session: the session replaces its model, graph and inputs rather than change them under
/// a snapshot, so it never waits for a job. Stepping one node is fast; a long run (continueRun,
/// runToNode) runs in slices of about runSliceBudget() ms, one per event-loop turn. Accessors
/// return nullptr while nothing is loaded.
///
/// Files on disk: the session watches the files the model was read from (modelWatcher()) and
/// reloadModel() reads them again, keeping the breakpoints, leaf overrides, selection, input
/// specs and run inputs that still apply. What the session shows never depends on the files
/// staying as they were: a model's weights are read into memory when it opens.

#include "session/FileChangeWatcher.h"
#include "session/ModelSnapshot.h"
#include "session/ModelTrace.h"
#include "session/SessionInputs.h"
#include "session/SteppingDriver.h"

#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

class QUndoStack;

namespace lattice::studio {

class StudioSession : public QObject {
  Q_OBJECT

public:
  using InterpreterState = SteppingDriver::State;

  explicit StudioSession(QObject* parent = nullptr);
  ~StudioSession() override;

  // --- model and trace ------------------------------------------------------------------------

  /// What was opened ("example:sparse_resunet42" or an .ltfx path); empty when nothing is.
  QString modelReference() const { return m_trace.reference(); }
  const Model* model() const { return m_trace.model(); }
  /// The traced graph; nullptr when nothing is loaded or tracing failed.
  const fx::Graph* graph() const { return m_trace.graph(); }
  const LatticeTracer& tracer() const { return m_trace.tracer(); }
  /// What a job on another thread reads: the model, graph, tracer and options as they are now,
  /// immutable and shared (the same object until revision() changes).
  std::shared_ptr<const ModelSnapshot> snapshot() const;
  /// Bumped whenever the model, its weights, the graph, the input specs or the export options
  /// change: a result computed from an older snapshot is stale.
  quint64 revision() const { return m_revision; }
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
  bool isLeaf(const QString& modulePath) const { return m_trace.isLeaf(modulePath); }
  /// Sets (or with nullopt clears) a leaf override and re-traces; emits graphChanged or
  /// traceFailed. The interpreter is reset.
  void setLeafOverride(const QString& modulePath, std::optional<bool> leaf);

  // --- lowering / interpreter -----------------------------------------------------------------

  /// Options used by the interpreter and by export (defaults: the archive's hints). Their
  /// `inputs` are always inputSpecs().
  const ExportOptions& exportOptions() const { return m_inputs->exportOptions(); }
  /// Replaces the options; `options.inputs`, when set, replaces inputSpecs() (undoable).
  void setExportOptions(const ExportOptions& options);

  // --- inputs ---------------------------------------------------------------

  /// The model's input specs, one per exposed forward input in order: the one list the
  /// interpreter (F5) and File ▸ Export both use, edited in the Inputs table. It starts as the
  /// archive's example inputs (none for a TorchScript file), or as the list last used for this
  /// model (QSettings group inputSettingsGroup(), keyed by the model's path or example name).
  const std::vector<InputSpec>& inputSpecs() const { return m_inputs->specs(); }
  /// Replaces the list: one step of undoStack() (`description` names it), remembered for
  /// the model (forgotten again when it equals the archive's), the interpreter reset, then
  /// inputSpecsChanged. Nothing when `specs` equals the current list.
  void setInputSpecs(std::vector<InputSpec> specs, const QString& description = QString());
  /// Back to the archive's example inputs (undoable).
  void resetInputSpecs();
  /// The archive's example inputs (empty for a TorchScript model, or when nothing is open).
  const std::vector<InputSpec>& archiveInputSpecs() const { return m_inputs->archiveSpecs(); }
  /// True when inputSpecs() differs from archiveInputSpecs().
  bool inputSpecsEdited() const { return m_inputs->edited(); }
  /// The root forward's positional parameter names: the ABI names the specs take, in order.
  QStringList forwardInputNames() const { return m_inputs->forwardInputNames(); }
  /// The document's undo stack: leaf toggles (LeafEdits) and input edits, one history. Emptied
  /// when another model opens (its edits belong to the old one); a reload keeps it.
  QUndoStack* undoStack() const { return m_undo; }
  /// The stack input edits go on: undoStack().
  QUndoStack* inputUndoStack() const { return m_undo; }
  /// The QSettings group under which the inputs of `reference` are remembered
  /// ("inputs/<hash of the canonical path or the example name>").
  static QString inputSettingsGroup(const QString& reference) { return SessionInputs::settingsGroup(reference); }

  InterpreterState interpreterState() const { return m_driver->state(); }
  /// How many times the interpreter was reset: an interpreterReset seen at this count already
  /// is not news (a load emits its reset after modelLoaded).
  quint64 interpreterResets() const { return m_driver->resets(); }
  /// The prepared lowering (builder, interpreter); nullptr before start. Its graph is graph()
  /// (nullptr on the direct path).
  const PreparedLowering* lowering() const { return m_driver->lowering(); }
  /// The next node to execute; empty when not started or finished. On the direct path (a root
  /// module with its own lowering, no graph) it is the direct lowering's name until it ran.
  QString currentNode() const { return m_driver->currentNode(); }
  /// Names of the nodes executed since the interpreter started, in execution order. Runs
  /// (continueRun, runToNode) emit interpreterStepped once per slice, for the slice's last node:
  /// panels listing executed nodes append what this list holds beyond their rows.
  const QStringList& executedNodes() const { return m_driver->executedNodes(); }
  /// The node that failed and the message (state Failed).
  QString failedNode() const { return m_driver->failedNode(); }
  QString lastError() const { return m_driver->lastError(); }
  /// Every breakpoint, enabled or not (a node name each).
  const QSet<QString>& breakpoints() const { return m_driver->breakpoints(); }
  /// The breakpoints that are disabled: kept (and kept by reloadModel) but not stopped at.
  const QSet<QString>& disabledBreakpoints() const { return m_driver->disabledBreakpoints(); }
  /// True when `nodeName` has a breakpoint and it is enabled.
  bool isBreakpointEnabled(const QString& nodeName) const { return m_driver->stopsAt(nodeName); }
  /// Nodes the interpreter runs in all (the lowering graph's size, 1 on the direct path); 0
  /// before start.
  int totalNodes() const { return m_driver->totalNodes(); }

  /// True while continueRun / runToNode goes on from the event loop (between slices).
  bool isRunning() const { return m_driver->isRunning(); }
  /// Wall-clock budget of one run slice in ms (default 15). A slice executes at least one node
  /// and then stops stepping once the budget is spent; 0 makes every slice one node (tests).
  int runSliceBudget() const { return m_driver->sliceBudget(); }
  void setRunSliceBudget(int ms) { m_driver->setSliceBudget(ms); }

  // --- weights (File ▸ Load Weights…) and exports ----------------------------------

  /// The checkpoint file whose tensors replaced the model's; empty while the model has its own
  /// (cleared when another model opens).
  QString weightsSource() const { return m_trace.weightsSource(); }
  /// The last applyWeights report (meaningful when weightsSource() is not empty).
  const CheckpointReport& weightsReport() const { return m_trace.weightsReport(); }
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
  /// Runs until an enabled breakpoint's node becomes current (after at least one step; started
  /// from NotStarted, the first node's breakpoint counts), the end, or an error.
  /// The first slice runs at once; when it does not end the run, the rest runs a slice per
  /// event-loop turn (runningChanged(true), interpreterStepped per slice, runningChanged(false)
  /// after the final interpreterStepped / interpreterFinished / interpreterFailed).
  void continueRun();
  /// F5 when not paused (NotStarted, Finished, Failed): (re)starts the interpreter and runs as
  /// continueRun does to the first enabled breakpoint, the very first node's included, or the end.
  void startAndRun();
  /// Runs until `nodeName` is the current node (not executed), in slices as continueRun does,
  /// past breakpoints.
  void runToNode(const QString& nodeName);
  /// While paused: runs until `nodeName` (a node ahead of the current one) is the current node,
  /// stopping earlier at an enabled breakpoint, an error or the end; an empty name runs to the
  /// end. Step Over a collapsed module group and Step Out (see session/StepTargets.h).
  void runUntil(const QString& nodeName);
  /// Ends a run at the current slice boundary: the interpreter stays paused before the next
  /// node (the panels already show the last slice) and runningChanged(false) is emitted.
  /// Nothing when no run is going on.
  void interruptRun();
  /// While a run goes on: interruptRun(). Otherwise drops the interpreter state (state
  /// NotStarted) and emits interpreterReset.
  void stopInterpreter();
  void toggleBreakpoint(const QString& nodeName);
  /// Enables or disables the breakpoint on `nodeName` (nothing when it has none); emits
  /// breakpointsChanged.
  void setBreakpointEnabled(const QString& nodeName, bool enabled);
  void removeBreakpoint(const QString& nodeName);
  void clearBreakpoints();

  void selectNode(const QString& nodeName);
  /// Selects the module at `modulePath`; "" is the root module.
  void selectModule(const QString& modulePath);
  /// No module selected (selectedModule() is then "" and hasModuleSelection() false).
  void clearModuleSelection();

Q_SIGNALS:
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
  /// What a reload keeps: taken when it starts, applied to its result.
  struct ReloadState;
  /// Starts a load (openModel, reloadModel).
  void startLoad(const ModelTrace::LoadRequest& request);
  void applyLoad(quint64 generation, const std::shared_ptr<ModelTrace::LoadResult>& result);
  /// What a reload kept, for modelReloaded.
  QString reloadSummary(const ReloadState& reload, const ModelTrace::LoadResult& result) const;
  void retrace(const QString& error);
  /// An input edit, undo or redo applied: the interpreter reset, then inputSpecsChanged.
  void onInputSpecsApplied();
  void resetInterpreter(bool notify) { m_driver->reset(notify); }
  void bumpRevision() {
    ++m_revision;
    m_snapshot.reset();
  }

  ModelTrace m_trace;
  bool m_loading = false;
  quint64 m_loadGeneration = 0;
  quint64 m_revision = 0;
  mutable std::shared_ptr<const ModelSnapshot> m_snapshot; ///< snapshot() of m_revision, made on demand

  QUndoStack* m_undo;
  SessionInputs* m_inputs;
  SteppingDriver* m_driver;

  QString m_selectedNode;
  QString m_selectedModule;
  bool m_moduleSelected = false;

  QStringList m_exports;

  FileChangeWatcher* m_watcher;
  FileChangeWatcher::Snapshot m_loadSnapshot; ///< the files of the running load, before it read them
  std::unique_ptr<ReloadState> m_reload;      ///< set while a reload runs
};

} // namespace lattice::studio

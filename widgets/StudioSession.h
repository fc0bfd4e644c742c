#pragma once
/// \file StudioSession: the one object the studio's panels share. It owns the open model, the
/// traced graph (with the user's leaf/expand overrides), the steppable lowering and the
/// selection, runs long jobs off the UI thread, and tells every panel what changed through
/// signals. Panels never talk to each other: they observe the session and call its slots.
///
/// Threading: openModel() loads and traces on a worker thread (QtConcurrent); everything else
/// runs on the UI thread (tracing a loaded model and stepping are fast). Accessors return
/// nullptr while nothing is loaded.

#include "artifact/Lowering.h"
#include "model/Checkpoint.h"
#include "model/Model.h"
#include "trace/Tracer.h"

#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

namespace lattice::studio {

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

  /// Effective leaf decision for a module path (override, else the lattice policy).
  bool isLeaf(const QString& modulePath) const;
  /// Sets (or with nullopt clears) a leaf override and re-traces; emits graphChanged or
  /// traceFailed. The interpreter is reset.
  void setLeafOverride(const QString& modulePath, std::optional<bool> leaf);

  // --- lowering / interpreter -----------------------------------------------------------------

  /// Options used by the interpreter and by export (defaults: the archive's hints).
  const ExportOptions& exportOptions() const { return m_exportOptions; }
  void setExportOptions(const ExportOptions& options);

  InterpreterState interpreterState() const { return m_state; }
  /// The prepared lowering (builder, graph, interpreter); nullptr before start.
  const PreparedLowering* lowering() const { return m_lowering.get(); }
  /// The next node to execute; empty when not started or finished. On the direct path (a root
  /// module with its own lowering, no graph) it is the direct lowering's name until it ran.
  QString currentNode() const;
  /// Names of the nodes executed since the interpreter started, in execution order. Batch runs
  /// (continueRun, runToNode) emit interpreterStepped once, for the last node: panels listing
  /// executed nodes append what this list holds beyond their rows.
  const QStringList& executedNodes() const { return m_executed; }
  /// The node that failed and the message (state Failed).
  QString failedNode() const { return m_failedNode; }
  QString lastError() const { return m_lastError; }
  const QSet<QString>& breakpoints() const { return m_breakpoints; }

  // --- weights (File ▸ Load Weights…, issue #7) and exports ----------------------------------

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
  /// The selected module path (empty for none).
  QString selectedModule() const { return m_selectedModule; }

public Q_SLOTS:
  /// Loads `reference` (path or example:NAME) and traces it in the background. A newer call
  /// supersedes an older one (its result is dropped). Emits modelLoadStarted, then modelLoaded
  /// or modelLoadFailed.
  void openModel(const QString& reference);
  /// Cancels a running load (its result is dropped).
  void cancelLoad();

  /// (Re)starts the interpreter on the current graph with exportOptions(); emits
  /// interpreterReset (or interpreterFailed when the lowering cannot be prepared).
  void startInterpreter();
  /// Executes one node; emits interpreterStepped / interpreterFinished / interpreterFailed.
  void step();
  /// Runs until a breakpoint node becomes current (after at least one step), the end, or an error.
  void continueRun();
  /// Runs until `nodeName` is the current node (not executed).
  void runToNode(const QString& nodeName);
  /// Drops the interpreter state (state NotStarted); emits interpreterReset.
  void stopInterpreter();
  void toggleBreakpoint(const QString& nodeName);

  void selectNode(const QString& nodeName);
  void selectModule(const QString& modulePath);

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
  void interpreterReset();
  void interpreterStepped(const QString& executedNode);
  void interpreterFinished();
  void interpreterFailed(const QString& nodeName, const QString& message);
  void breakpointsChanged();
  void selectionChanged(const QString& nodeName);
  void moduleSelectionChanged(const QString& modulePath);
  /// applyWeights replaced the model's tensors with those of `source`.
  void weightsLoaded(const QString& source);
  /// recordExport: an artifact was written to `directory`.
  void artifactExported(const QString& directory);

private:
  struct LoadResult;
  /// Runs on a worker thread: loads `reference` and traces it with the default policy.
  static std::shared_ptr<LoadResult> loadAndTrace(const QString& reference);
  void applyLoad(quint64 generation, const std::shared_ptr<LoadResult>& result);
  void retrace();
  void resetInterpreter(bool notify);
  bool ensureStarted();
  /// Executes one node without emitting; false when the run must stop (end or error).
  bool stepOnce();
  void fail(const QString& nodeName, const QString& message);
  void finishStep(const QString& executed);

  QString m_reference;
  std::unique_ptr<Model> m_model;
  std::unique_ptr<fx::Graph> m_graph;
  LatticeTracer m_tracer;
  bool m_loading = false;
  quint64 m_loadGeneration = 0;

  ExportOptions m_exportOptions;
  std::unique_ptr<PreparedLowering> m_lowering;
  InterpreterState m_state = InterpreterState::NotStarted;
  QString m_failedNode;
  QString m_lastError;
  QSet<QString> m_breakpoints;
  QStringList m_executed;

  QString m_selectedNode;
  QString m_selectedModule;

  QString m_weightsSource;
  CheckpointReport m_weightsReport;
  QStringList m_exports;
};

} // namespace lattice::studio

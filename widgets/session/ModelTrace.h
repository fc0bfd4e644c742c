#pragma once
/// \file ModelTrace: the open model and its trace, one of StudioSession's parts. It holds the
/// model (with a loaded checkpoint's weights), the tracer with the user's leaf overrides and the
/// graph traced with them, and what a load does on a worker (loadAndTrace). It emits nothing:
/// the session says what changed, in the order its observers rely on.
///
/// The model and the graph are held by shared_ptr and never changed while a snapshot
/// (ModelSnapshot) shares them: a new trace is a new graph, and weights applied while a worker
/// reads the model go into a copy that replaces it.

#include "model/torchscript/Checkpoint.h"
#include "model/Model.h"
#include "trace/Tracer.h"

#include <QString>
#include <QStringList>

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace lattice::studio {

class ModelTrace {
public:
  /// What a load reads besides the model: the leaf overrides to trace with (a reload's; those of
  /// modules the model no longer has are left out) and a checkpoint to apply first.
  struct LoadRequest {
    QString reference;
    std::map<std::string, bool> overrides;
    QString checkpoint;
    bool checkpointPartial = false;
  };
  /// What the worker hands back: the model (with the checkpoint applied), the tracer it was
  /// traced with, and its trace or the trace error.
  struct LoadResult {
    QString reference;
    std::unique_ptr<Model> model;
    std::unique_ptr<fx::Graph> graph;
    LatticeTracer tracer;
    QString loadError;
    QString traceError;
    /// The checkpoint of the request: its report when it applied, else why not.
    std::optional<CheckpointReport> checkpointReport;
    QString checkpointError;
  };
  /// Runs on a worker thread: loads the model, applies the checkpoint and traces it.
  static std::shared_ptr<LoadResult> loadAndTrace(const LoadRequest& request);
  /// The files of `reference` (and of a checkpoint) files() lists.
  static QStringList filesOf(const QString& reference, const QString& checkpoint);

  QString reference() const { return m_reference; }
  const Model* model() const { return m_model.get(); }
  std::shared_ptr<const Model> sharedModel() const { return m_model; }
  const fx::Graph* graph() const { return m_graph.get(); }
  std::shared_ptr<const fx::Graph> sharedGraph() const { return m_graph; }
  const LatticeTracer& tracer() const { return m_tracer; }
  /// The files the model was read from (filesOf the reference and the weights' source).
  QStringList files() const;

  /// Effective leaf decision for a module path (override, else the lattice policy).
  bool isLeaf(const QString& modulePath) const;
  /// Takes a load's model, graph and tracer; the weights are the model's own again.
  void take(LoadResult& result);
  /// Sets (nullopt: clears) a leaf override and traces again: the trace's error, or "" (the
  /// graph is null after an error). Nothing to do without a model.
  QString setLeafOverride(const QString& modulePath, std::optional<bool> leaf);

  /// The checkpoint file whose tensors replaced the model's ("" while the model has its own).
  QString weightsSource() const { return m_weightsSource; }
  const CheckpointReport& weightsReport() const { return m_weightsReport; }
  bool weightsPartial() const { return m_weightsPartial; }
  /// Records weights a load applied (a reload applying the checkpoint again).
  void setWeights(const QString& source, const CheckpointReport& report, bool partial);
  /// applyCheckpoint on the model; on failure it is unchanged.
  Expected<CheckpointReport> applyWeights(const Checkpoint& checkpoint, bool allowPartial);

private:
  QString m_reference;
  std::shared_ptr<Model> m_model;
  std::shared_ptr<const fx::Graph> m_graph;
  LatticeTracer m_tracer;
  QString m_weightsSource;
  CheckpointReport m_weightsReport;
  bool m_weightsPartial = false; ///< the checkpoint was applied with allowPartial
};

} // namespace lattice::studio

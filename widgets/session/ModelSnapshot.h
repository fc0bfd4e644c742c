#pragma once
/// \file ModelSnapshot: what a worker reads of the session, frozen. A job takes a
/// `std::shared_ptr<const ModelSnapshot>` on the UI thread (StudioSession::snapshot()) and reads
/// only that: the session replaces its model, graph, tracer and inputs instead of changing them
/// while a snapshot holds them, so a job never waits for the UI thread nor the UI thread for it.

#include "lowering/Lowering.h"
#include "model/Model.h"
#include "trace/Tracer.h"

#include <QString>
#include <QtGlobal>

#include <memory>

namespace lattice::studio {

struct ModelSnapshot {
  /// StudioSession::revision() when it was taken: equal revisions, equal contents.
  quint64 revision = 0;
  /// The model's reference ("example:chain:2" or a path).
  QString reference;
  std::shared_ptr<const Model> model;
  /// The traced graph (null when nothing is traced); its nodes are the session's.
  std::shared_ptr<const fx::Graph> graph;
  /// A copy of the session's tracer (with the leaf overrides the graph was traced with).
  std::shared_ptr<const LatticeTracer> tracer;
  /// The interpreter's and export's options: `inputs` set to the input specs, `tracer` pointing
  /// at `tracer` above.
  ExportOptions options;
};

} // namespace lattice::studio

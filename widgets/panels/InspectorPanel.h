#pragma once
/// \file InspectorPanel: the inspector view over an InspectorModel: the selected
/// node (op, target, args, kwargs, users, value, emitted MLIR) and the selected module (or the
/// module a selected call_module node calls). Double-clicking a row that names a node (an
/// argument, a user) selects that node.

#include <QWidget>

class QTreeView;

namespace lattice::studio {

class InspectorModel;
class StudioSession;

class InspectorPanel : public QWidget {
  Q_OBJECT

public:
  explicit InspectorPanel(StudioSession* session, QWidget* parent = nullptr);

  InspectorModel* model() const { return m_model; }
  QTreeView* view() const { return m_view; }

private:
  StudioSession* m_session;
  InspectorModel* m_model;
  QTreeView* m_view;
};

} // namespace lattice::studio

#pragma once
/// \file ModuleTreePanel: the module tree view over a ModuleTreeModel. Selecting
/// a row selects the module in the session (and so in every panel); the Leaf checkbox and the
/// context menu (Keep as Leaf / Inline / Use Tracer Default / Select Call Node) change how the
/// module is traced.

#include <QWidget>

class QTreeView;

namespace lattice::studio {

class ModuleTreeModel;
class StudioSession;

class ModuleTreePanel : public QWidget {
  Q_OBJECT

public:
  explicit ModuleTreePanel(StudioSession* session, QWidget* parent = nullptr);

  ModuleTreeModel* model() const { return m_model; }
  QTreeView* view() const { return m_view; }

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  /// Expands the root and its children that have few children.
  void expandTopLevels();
  /// The user selected the row `current`: selects its module in the session.
  void onCurrentChanged(const QModelIndex& current);
  void onSessionModuleSelected(const QString& path);
  void onContextMenu(const QPoint& pos);
  /// The call_module node of the traced graph that calls `path`; empty when none.
  QString callNodeOf(const QString& path) const;

  StudioSession* m_session;
  ModuleTreeModel* m_model;
  QTreeView* m_view;
  bool m_syncing = false;         ///< true while the view follows the session (no echo back)
  bool m_pressOnSelected = false; ///< the last mouse press hit the already selected row
};

} // namespace lattice::studio

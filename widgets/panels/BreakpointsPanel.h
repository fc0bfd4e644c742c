#pragma once
/// \file BreakpointsPanel: the Breakpoints dock, as in an IDE. A tool bar (Remove, Remove All,
/// Enable All, Disable All) over the BreakpointsModel table: a row's check box enables or disables
/// its breakpoint (a disabled one stays listed, and a run goes past it), Delete removes the
/// selected rows, a double-click (or Enter) selects the node in every panel. An empty list says
/// how to set one.

#include <QWidget>

class QAction;
class QLabel;
class QTableView;

namespace lattice::studio {

class BreakpointsModel;
class StudioSession;

class BreakpointsPanel : public QWidget {
  Q_OBJECT

public:
  explicit BreakpointsPanel(StudioSession* session, QWidget* parent = nullptr);

  BreakpointsModel* model() const { return m_model; }
  QTableView* view() const { return m_view; }
  /// "remove", "removeAll", "enableAll", "disableAll".
  QAction* action(const QString& id) const;

private:
  QAction* makeAction(const QString& id, const QString& text, const QString& tip);
  void removeSelected();
  void setAllEnabled(bool enabled);
  void activate(const QModelIndex& index);
  void updateActions();

  StudioSession* m_session;
  BreakpointsModel* m_model;
  QTableView* m_view;
  QLabel* m_empty;
  QList<QAction*> m_actions;
};

} // namespace lattice::studio

#pragma once
/// \file GraphLegend: the key to node roles and states, painted as a small card over the graph
/// view (it does not scale with the scene).

#include <QWidget>

namespace lattice::studio {

class GraphLegend : public QWidget {
  Q_OBJECT

public:
  explicit GraphLegend(QWidget* parent = nullptr);

  QSize sizeHint() const override;
  /// One column (roles then states) or two (roles | states) for short views.
  void setColumns(int columns);
  int columns() const { return m_columns; }

protected:
  void paintEvent(QPaintEvent* event) override;

private:
  int m_columns = 1;
};

} // namespace lattice::studio

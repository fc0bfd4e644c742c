#pragma once
/// \file Colours of the artifact views: op categories (artifact view) and diff statuses
/// (compare view), and ArtifactLegend, the row of swatches that explains them; the tables and
/// splitters both views are built from.

#include "artifactview/ArtifactOpGraph.h"
#include "diff/ArtifactDiff.h"

#include <QColor>
#include <QSplitter>
#include <QTableView>
#include <QString>
#include <QVector>
#include <QWidget>

namespace lattice::studio {

/// Fill, border and text colour of a node, and its legend text.
struct ArtifactNodeStyle {
  QColor fill;
  QColor border;
  QColor text;
  QString label;
  bool dashed = false; ///< dashed border (removed ops)
};

/// The style of an op category (same hues as the model graph's roles where they correspond:
/// arguments like inputs, weights like attributes).
const ArtifactNodeStyle& categoryStyle(OpCategory category);
/// The style of a diff status: unchanged grey, changed amber, added green, removed red (dashed).
const ArtifactNodeStyle& statusStyle(DiffStatus status);
/// Every category / status, in legend order.
QVector<OpCategory> legendCategories();
QVector<DiffStatus> legendStatuses();

/// A read-only table of whole rows, compact rows, no row header, last column stretched.
QTableView* makeTable(QWidget* parent, QAbstractItemView::SelectionMode selection);

/// A splitter named `objectName` holding `first` and `second`, sized 3:2 when `weighted`.
QSplitter* makeSplitPair(Qt::Orientation orientation, const QString& objectName, QWidget* first, QWidget* second,
                         QWidget* parent, bool weighted = true);
/// Restores `splitter` from QSettings key `settingsKey` (`defaultSizes` when nothing valid is
/// saved there) and saves its state under that key whenever the user moves it.
void persistSplitter(QSplitter* splitter, const QString& settingsKey, const QList<int>& defaultSizes);

/// A one-line legend: a swatch and a label per entry, wrapping when narrow.
class ArtifactLegend : public QWidget {
  Q_OBJECT

public:
  explicit ArtifactLegend(QWidget* parent = nullptr);

  void setEntries(const QVector<ArtifactNodeStyle>& entries);
  const QVector<ArtifactNodeStyle>& entries() const { return m_entries; }

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;

protected:
  void paintEvent(QPaintEvent* event) override;

private:
  /// Entry rectangles when laid out in `width`.
  QVector<QRect> layoutEntries(int width) const;

  QVector<ArtifactNodeStyle> m_entries;
};

} // namespace lattice::studio

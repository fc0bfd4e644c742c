#pragma once
/// \file Colours of the artifact views: op categories (artifact view) and diff statuses
/// (compare view), and ArtifactLegend, the row of swatches that explains them; a run's figures
/// on an op's box; the tables and splitters both views are built from.

#include "artifactview/ArtifactOpGraph.h"
#include "diff/ArtifactDiff.h"

#include <QColor>
#include <QSplitter>
#include <QTableView>
#include <QString>
#include <QVector>
#include <QWidget>

namespace lattice {
struct ArtifactRunResult;
}

namespace lattice::studio {

enum class ArtifactOverlay;

/// Fill, border and text colour of a node, and its legend text; and a run's figure on it.
struct ArtifactNodeStyle {
  QColor fill;
  QColor border;
  QColor text;
  QString label;
  bool dashed = false; ///< dashed border (removed ops)
  /// A run's figure painted in a badge on the box when the zoom lets it be read ("" for none),
  /// and the lines added to the box's tooltip ("" for none).
  QString figure;
  QString figureDetail;
};

/// The style of an op category (same hues as the model graph's roles where they correspond:
/// arguments like inputs, weights like attributes).
const ArtifactNodeStyle& categoryStyle(OpCategory category);
/// The style of a diff status: unchanged grey, changed amber, added green, removed red (dashed).
const ArtifactNodeStyle& statusStyle(DiffStatus status);
/// Every category / status, in legend order.
QVector<OpCategory> legendCategories();
QVector<DiffStatus> legendStatuses();

/// Puts op `op`'s figures of `result` on `style`: its time (ms and share of the run) under the
/// time overlay, its outputs' error against the golden under the accuracy overlay (nothing
/// otherwise), and both in the tooltip lines whatever the overlay.
void setRunFigures(ArtifactNodeStyle& style, ArtifactOverlay overlay, const ArtifactRunResult& result,
                   int op);

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

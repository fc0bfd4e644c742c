#pragma once
/// \file ArtifactNodeItem: one box of an artifact's op graph (an argument or an op). It paints
/// its two label lines (Graphviz only reserved the space), its style (category or diff status),
/// a pink corner for values the function returns, the selection outline, and a run's figure
/// (the style's) in a badge on its bottom edge when the zoom lets it be read.

#include "artifactview/ArtifactStyle.h"

#include <QGraphicsItem>
#include <QString>

#include <array>

namespace lattice::studio {

class ArtifactNodeItem : public QGraphicsItem {
public:
  enum { Type = UserType + 11 };

  /// `node` is the node's position in its ArtifactOpGraph; `size` the box laid out.
  ArtifactNodeItem(int node, const OpGraphNode& data, const ArtifactNodeStyle& style, QSizeF size);

  int type() const override { return Type; }
  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  int node() const { return m_node; }
  const QString& title() const { return m_title; }
  const QString& subtitle() const { return m_subtitle; }
  const ArtifactNodeStyle& style() const { return m_style; }
  /// A new style; its figure and figure detail replace the previous ones (the detail follows the
  /// op's own tooltip).
  void setStyle(const ArtifactNodeStyle& style);
  /// A Find match: painted with the model graph's search halo.
  void setSearchHit(bool hit);
  bool isSearchHit() const { return m_searchHit; }

  /// Advances of the label fonts, taken on the UI thread so that workers can size thousands of
  /// boxes without touching fonts: per ASCII character, and a fallback (the widest) for others.
  struct LabelMetrics {
    std::array<double, 128> title{};
    std::array<double, 128> subtitle{};
    double titleFallback = 0;
    double subtitleFallback = 0;
    double titleHeight = 0;
    double subtitleHeight = 0;
  };
  /// The current fonts' metrics. UI thread only.
  static LabelMetrics labelMetrics();
  /// The box a label needs (what the layout is asked to reserve), from `metrics`: any thread.
  /// Kerning is ignored; the painted text is elided if it ever needs more.
  static QSizeF sizeFor(const LabelMetrics& metrics, const QString& title, const QString& subtitle);

private:
  QRectF box() const;
  void paintLabel(QPainter* painter, const QRectF& r) const;

  int m_node;
  QString m_title;
  QString m_subtitle;
  bool m_returned;
  bool m_searchHit = false;
  ArtifactNodeStyle m_style;
  QSizeF m_size;
  QString m_baseToolTip; ///< the op's own tooltip, before a run's figures
};

} // namespace lattice::studio

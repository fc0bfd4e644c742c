#pragma once
/// \file ElidedLabel: a one-line QLabel that never asks for the width of its text. Its minimum
/// size hint is a few characters wide; when the text does not fit, it shows as much of it as
/// fits, ended by "…", and the tooltip gives the whole text (unless a tooltip was set). text()
/// is always the full text, rich or plain.

#include <QLabel>

namespace lattice::studio {

class ElidedLabel : public QLabel {
  Q_OBJECT

public:
  explicit ElidedLabel(QWidget* parent = nullptr);
  explicit ElidedLabel(const QString& text, QWidget* parent = nullptr);

  QSize minimumSizeHint() const override;
  /// True when the last paint (or the current width) cannot show the whole text.
  bool isElided() const;
  /// The text as plain text (rich text stripped), on one line.
  QString plainText() const;

protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;
};

} // namespace lattice::studio

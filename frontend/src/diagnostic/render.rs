//! Rendering diagnostics as ariadne reports. This is the only place that knows ariadne.

use super::{Diagnostic, Severity};
use ariadne::{Config, Label as AriadneLabel, Report, ReportKind, Source};

/// Renders one diagnostic against its source file as text. `colour` is off for snapshots and
/// for output that is not a terminal.
pub fn render(diagnostic: &Diagnostic, file_name: &str, source: &str, colour: bool) -> String {
    let kind = match diagnostic.severity {
        Severity::Error => ReportKind::Error,
        Severity::Warning => ReportKind::Warning,
    };
    let anchor =
        diagnostic.primary_span().or_else(|| diagnostic.labels.first().map(|label| label.span)).unwrap_or_default();
    let clamp = |span: crate::Span| {
        let end = (span.end as usize).min(source.len());
        let start = (span.start as usize).min(end);
        start..end
    };
    let mut report = Report::build(kind, (file_name, clamp(anchor)))
        .with_config(Config::default().with_color(colour).with_index_type(ariadne::IndexType::Byte))
        .with_code(diagnostic.code.as_str())
        .with_message(&diagnostic.message);
    for (order, label) in diagnostic.labels.iter().enumerate() {
        let mut ariadne_label =
            AriadneLabel::new((file_name, clamp(label.span))).with_message(&label.message).with_order(order as i32);
        if label.primary {
            ariadne_label = ariadne_label.with_priority(1);
        }
        report = report.with_label(ariadne_label);
    }
    for note in &diagnostic.notes {
        report = report.with_note(note);
    }
    if let Some(help) = &diagnostic.help {
        report = report.with_help(help);
    }
    let mut out = Vec::new();
    // Writing into a Vec cannot fail; a failure would only lose the rendering, never panic.
    let _ = report.finish().write((file_name, Source::from(source)), &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// Renders every diagnostic in order, errors and warnings alike.
pub fn render_all(diagnostics: &[Diagnostic], file_name: &str, source: &str, colour: bool) -> String {
    diagnostics.iter().map(|diagnostic| render(diagnostic, file_name, source, colour)).collect()
}

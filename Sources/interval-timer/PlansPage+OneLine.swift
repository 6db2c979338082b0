import CGtk
import CGtkShims
import Dispatch
import IntervalCore
import IntervalRuntime

/// The plans page's field for a one-line plan: checked as it is typed (long texts off the main thread, only the newest
/// verdict shown), its problem marked, started or saved as a plan.
extension PlansPage {
    func check() {
        typed += 1
        let attempt = typed
        let text = oneLine.text
        guard !text.allSatisfy(\.isWhitespace) else {
            show(nil, for: attempt)
            return
        }
        if text.utf8.count <= Self.parseInPlaceLimit {
            show(Self.verdict(for: text), for: attempt)
            return
        }
        // Until this text's verdict is in.
        gtk_widget_set_sensitive(startOneLine.widget, 0)
        gtk_widget_set_sensitive(saveOneLine.widget, 0)
        let box = UncheckedBox(Unmanaged.passRetained(self))
        Self.parseQueue.async {
            let verdict = Self.verdict(for: text)
            onMainThread {
                let page = box.value.takeRetainedValue()
                page.show(verdict, for: attempt)
            }
        }
    }

    static func verdict(for text: String) -> Result<String, PlanDiagnostic> {
        Result { () throws(PlanDiagnostic) in
            let plan = try PlanParser.parse(text, origin: "<inline>", defaultName: PlanLocator.inlineName(for: text))
            // A note ("400m is 400 minutes") is said under the length; the plan can still be started.
            return ([PlanReport.lengthText(plan)] + plan.notes.map { tr("Note: {note}", ["note": $0.sentence]) })
                .joined(separator: "\n")
        }
    }

    func show(_ verdict: Result<String, PlanDiagnostic>?, for attempt: Int) {
        guard attempt == typed else { return }
        switch verdict {
        case nil:
            setText(self.verdict, tr("Type a plan such as 8x(30s run, 30s walk)."))
        case .success(let estimate):
            setText(self.verdict, estimate)
        case .failure(let diagnostic):
            setText(self.verdict, diagnostic.sentence)
        }
        markProblem(verdict.flatMap { if case .failure(let diagnostic) = $0 { diagnostic } else { nil } })
        let valid: gboolean = verdict.map { (try? $0.get()) != nil } == true ? 1 : 0
        gtk_widget_set_sensitive(startOneLine.widget, valid)
        gtk_widget_set_sensitive(saveOneLine.widget, valid)
    }

    /// Marks the field (its style, a screen reader's invalid state) and underlines the place `diagnostic` points at;
    /// nil clears the marks.
    func markProblem(_ diagnostic: PlanDiagnostic?) {
        if let diagnostic {
            gtk_widget_add_css_class(oneLine.widget, "error")
            let text = oneLine.text
            let marked = diagnostic.markedBytes(in: text)
            it_entry_mark_error(oneLine, guint(marked.lowerBound), guint(marked.upperBound))
        } else {
            gtk_widget_remove_css_class(oneLine.widget, "error")
            it_entry_mark_error(oneLine, 0, 0)
        }
        it_accessible_set_invalid(oneLine.widget, diagnostic == nil ? 0 : 1)
    }

    /// Start, or Enter in the field: only while Start is enabled, that is while the text as typed has parsed (its
    /// verdict is shown), so that it is not parsed again here.
    func startTyped() {
        guard gtk_widget_get_sensitive(startOneLine.widget) != 0 else { return }
        start(oneLine.text, "<inline>")
    }
}

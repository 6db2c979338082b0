import CGtk
import IntervalCore

/// A plan's timeline: its segments as a bar of coloured blocks, on a plan's page, in the list and in the editor.
enum Timeline {
    /// A list row's timeline: the plan at a glance (the row's subtitle says its length in words), in the colours of
    /// `restKinds` as they are when it is drawn.
    static func small(_ plan: Plan, restKinds: @escaping () -> Set<String>) -> Widget {
        let area = GtkDrawingArea.checked(gtk_drawing_area_new())
        gtk_drawing_area_set_content_width(area, 72)
        gtk_drawing_area_set_content_height(area, 12)
        gtk_widget_set_valign(area.widget, GTK_ALIGN_CENTER)
        setDrawing(area) { cairo, width, height in
            draw(plan, restKinds: restKinds(), cairo, width, height)
        }
        return area.widget
    }

    /// The plan's segments side by side, as wide as their share of the plan, coloured by tone (``ToneColours``).
    /// Segments thinner than a pixel merge into their neighbours, so a plan of a million segments draws as fast as one
    /// of ten. A step the person ends has no length: it is drawn as long as the plan's average timed step (a second at
    /// least), so that `open warmup, 6x(0.4km run, 90s walk)` shows its runs.
    static func draw(
        _ plan: Plan, restKinds: Set<String>, _ cairo: OpaquePointer, _ width: Int32, _ height: Int32
    ) {
        let open = plan.openStepCount
        let drawnOpen =
            open == 0 ? 0 : max(plan.duration / max(plan.segmentCount - open, 1), Micros.second)
        let drawnLength = plan.duration + open * drawnOpen
        guard drawnLength > 0 else { return }
        let scale = Double(width) / Double(drawnLength)
        var drawnTo = 0.0
        var openSoFar: Int64 = 0
        for segment in plan.segments {
            if segment.isOpen { openSoFar += 1 }
            let end = Double(segment.end + openSoFar * (drawnOpen - Step.timelineSlot)) * scale
            guard end - drawnTo >= 1 || segment.end == plan.timelineEnd else { continue }
            let (red, green, blue) = ToneColours.components(
                ToneColours.tone(ofKind: segment.kind, restKinds: restKinds))
            cairo_set_source_rgb(cairo, red, green, blue)
            cairo_rectangle(cairo, drawnTo, 0, end - drawnTo, Double(height))
            cairo_fill(cairo)
            drawnTo = end
            if drawnTo >= Double(width) { break }
        }
    }
}

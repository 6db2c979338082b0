import CGtk
import IntervalCore

/// A plan's timeline: its segments as a bar of coloured blocks, on a plan's page, in the list and in the editor.
enum Timeline {
    /// A list row's timeline: the plan at a glance (the row's subtitle says its length in words), in the colours of
    /// `restKinds` as they are when it is drawn.
    static func small(_ plan: Plan, restKinds: @escaping () -> Set<String>) -> Widget {
        let area: Widget = gtk_drawing_area_new()
        gtk_drawing_area_set_content_width(cast(area), 72)
        gtk_drawing_area_set_content_height(cast(area), 12)
        gtk_widget_set_valign(area, GTK_ALIGN_CENTER)
        setDrawing(area) { cairo, width, height in
            draw(plan, restKinds: restKinds(), cairo, width, height)
        }
        return area
    }

    /// The plan's segments side by side, as wide as their share of the plan, coloured by tone (``ToneColours``).
    /// Segments thinner than a pixel merge into their neighbours, so a plan of a million segments draws as fast as one
    /// of ten.
    static func draw(
        _ plan: Plan, restKinds: Set<String>, _ cairo: OpaquePointer, _ width: Int32, _ height: Int32
    ) {
        guard plan.duration > 0 else { return }
        let scale = Double(width) / Double(plan.duration)
        var drawnTo = 0.0
        for segment in plan.segments {
            let end = Double(segment.end) * scale
            guard end - drawnTo >= 1 || segment.end == plan.duration else { continue }
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

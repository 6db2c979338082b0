import CGtk
import IntervalCore
import IntervalRuntime

/// Finds the record of the workout that just ended, for the finish page: the daemon appends it to the history file
/// just before or just after its `Finished` or `Stopped` signal, so both the signal (``ended(planName:)``) and the
/// file's changes (a monitor) look for it. The history page is told of every change of the file too.
final class FinishWatcher {
    private let store: StateStore
    private var watch: FileWatch?
    /// How many records the history held when last looked at, and the plan whose record is awaited.
    private var recordsSeen = 0
    private var endingPlan: String?
    /// The record of the workout that ended.
    private let recorded: (HistoryRecord) -> Void
    /// The history file changed.
    private let historyChanged: () -> Void

    init(store: StateStore, recorded: @escaping (HistoryRecord) -> Void, historyChanged: @escaping () -> Void) {
        self.store = store
        self.recorded = recorded
        self.historyChanged = historyChanged
        recordsSeen = (try? store.history().records.count) ?? 0
        watch = FileWatch(.file(store.historyPath)) { [unowned self] in
            lookForRecord()
            self.historyChanged()
        }
    }

    /// A workout of `planName` ended: its record is awaited.
    func ended(planName: String) {
        endingPlan = planName
        lookForRecord()
    }

    private func lookForRecord() {
        guard let endingPlan, let records = try? store.history().records, records.count > recordsSeen,
            let record = records.last, record.plan == endingPlan
        else { return }
        recordsSeen = records.count
        self.endingPlan = nil
        recorded(record)
    }
}

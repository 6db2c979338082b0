import IntervalCore
import Testing

@Suite struct WorkoutDisplayTests {
    /// 3 s into a 30 s "Work" of a 4:00 plan, next "Rest".
    private let running = {
        var status = TimerStatus.idle
        (status.state, status.planName, status.planDuration) = (.running, "Tabata", 240_000_000)
        (status.segmentIndex, status.segmentCount, status.segmentKind) = (2, 16, "work")
        (status.segmentLabel, status.segmentDuration, status.nextLabel) = ("Work", 20_000_000, "Rest")
        (status.elapsed, status.segmentRemaining, status.remaining) = (63_000_000, 17_000_000, 177_000_000)
        return status
    }()

    @Test func showsTheStatusAsItWasRead() throws {
        let shown = try #require(WorkoutDisplay(running, age: 0, restKinds: ["rest"]))
        #expect(shown.title == "Work")
        #expect(shown.countdown == "0:17")
        #expect(shown.next == "Next: Rest")
        #expect(shown.position == "segment 3 of 16")
        #expect(shown.tone == .work)
        #expect(!shown.paused)
        #expect(shown.times == "1:03 elapsed · 2:57 left")
        #expect(abs(shown.segmentProgress - 0.15) < 1e-9)
        #expect(abs(shown.planProgress - 63.0 / 240) < 1e-9)
    }

    @Test func aRunningWorkoutMovesOnWithTheLocalClockAndAPausedOneDoesNot() throws {
        let later = try #require(WorkoutDisplay(running, age: 2_500_000, restKinds: []))
        #expect(later.countdown == "0:15")  // 14.5 s left, rounded up
        #expect(later.times == "1:05 elapsed · 2:55 left")
        var paused = running
        paused.state = .paused
        let still = try #require(WorkoutDisplay(paused, age: 60_000_000, restKinds: []))
        #expect(still.countdown == "0:17")
        #expect(still.tone == .paused)
        #expect(still.paused)
    }

    @Test func restKindsAreCoolAndTheLastSegmentSaysSo() throws {
        var rest = running
        rest.segmentKind = "rest"
        rest.nextLabel = ""
        let shown = try #require(WorkoutDisplay(rest, age: 0, restKinds: ["rest"]))
        #expect(shown.tone == .rest)
        #expect(shown.next == "Last one")
        #expect(WorkoutDisplay(.idle, age: 0, restKinds: []) == nil)
    }

    @Test func theNextChangeIsAtTheNextWholeSecondOfTheSegmentsTimeLeft() {
        var status = running
        status.segmentRemaining = 17_250_000
        #expect(WorkoutDisplay.nextChange(status, age: 0) == 250_000)
        // 100 ms after the read, the change is still 250 ms after the read.
        #expect(WorkoutDisplay.nextChange(status, age: 100_000) == 250_000)
        // On a whole second, the next change is a second later.
        #expect(WorkoutDisplay.nextChange(status, age: 250_000) == 1_250_000)
        // The last second shows 0:01 until SegmentStarted: never 0:00 for the instant before it.
        status.segmentRemaining = 1_300_000
        #expect(WorkoutDisplay.nextChange(status, age: 0) == 300_000)
        #expect(WorkoutDisplay.nextChange(status, age: 300_000) == nil)
        status.state = .paused
        #expect(WorkoutDisplay.nextChange(status, age: 0) == nil)
    }

    /// 2.5 s into an open warm-up of `open warmup, 2x(0.4km run, 3s walk)`: the workout's time counts up, and the
    /// plan's 6 s are left after it.
    private let warmingUp = {
        var status = TimerStatus.idle
        (status.state, status.planName, status.planDuration) = (.running, "Track", 6_000_000)
        (status.segmentIndex, status.segmentCount, status.segmentKind) = (0, 5, "warmup")
        (status.segmentLabel, status.segmentDuration, status.nextLabel) = ("Warm-up", 0, "Run")
        (status.open, status.segmentElapsed, status.elapsed) = (true, 2_500_000, 2_500_000)
        (status.remaining, status.planOpenSteps) = (6_000_000, 3)
        return status
    }()

    /// A strap heard: the page shows "♥ 142" under the digits, said "Heart rate 142 bpm"; nothing while none is.
    @Test func theStrapsHeartRateIsShownWhileOneIsHeard() throws {
        var status = warmingUp
        #expect(try #require(WorkoutDisplay(status, age: 0, restKinds: [])).heartRate == nil)
        status.heartRate = 142
        let shown = try #require(WorkoutDisplay(status, age: 0, restKinds: [])?.heartRate)
        #expect(shown.shown == "♥ 142" && shown.spoken == "Heart rate 142 bpm")
    }

    /// `hr<120 warmup` without a strap: the window says the bound the bus gives before Done.
    /// A treadmill's speed and distance, or a bike's power and cadence, under the heart rate, said in words.
    @Test func theMachinesReadingIsShownWhileOneIsHeard() throws {
        var status = warmingUp
        #expect(try #require(WorkoutDisplay(status, age: 0, restKinds: [])).machine == nil)
        status.machineReading = MachineReading(speed: 12, distance: 350)
        let treadmill = try #require(WorkoutDisplay(status, age: 0, restKinds: [])?.machine)
        #expect(treadmill.shown == "12.0 km/h · 350 m" && treadmill.spoken == "Speed 12.0 km/h, distance 350 m")
        status.machineReading = MachineReading(speed: 30, power: 210, cadence: 90)
        let bike = try #require(WorkoutDisplay(status, age: 0, restKinds: [])?.machine)
        #expect(bike.shown == "210 W · 90 rpm" && bike.spoken == "Power 210 W, cadence 90 rpm")
    }

    @Test func aStepAHeartRateEndsSaysItsBound() throws {
        var status = warmingUp
        status.segmentHeartRateBound = "hr<120"
        let shown = try #require(WorkoutDisplay(status, age: 0, restKinds: []))
        #expect(shown.next == "until heart rate below 120 · Done when you are ready · Next: Run")
    }

    @Test func aStepThePersonEndsCountsUpSaysDoneAndHasNoTimeLeftOfItsOwn() throws {
        let shown = try #require(WorkoutDisplay(warmingUp, age: 0, restKinds: []))
        #expect(shown.open)
        #expect(shown.countdown == "0:02")
        #expect(shown.next == "Done when you are ready · Next: Run")
        #expect(shown.times == "0:02 elapsed · 0:06 left after this step")
        #expect(shown.segmentProgress == 0 && shown.planProgress == 0)
        // It counts up with the local clock, and so does the workout's time; what is left of the plan waits.
        let later = try #require(WorkoutDisplay(warmingUp, age: 1_000_000, restKinds: []))
        #expect(later.countdown == "0:03")
        #expect(later.times == "0:03 elapsed · 0:06 left after this step")
        #expect(WorkoutDisplay.nextChange(warmingUp, age: 0) == 500_000)
        #expect(WorkoutDisplay.nextChange(warmingUp, age: 500_000) == 1_500_000)
    }

    @Test func aDistanceThePersonEndsSaysSoAndTheStepsEndedCountInTheTimeNotInWhatIsLeft() throws {
        var running = warmingUp
        (running.segmentIndex, running.segmentKind, running.segmentLabel) = (1, "run", "Run")
        (running.segmentDistance, running.nextLabel, running.segmentElapsed) = (400, "Walk", 95_000_000)
        running.elapsed = 125_000_000  // the warm-up's 30 s and this step's 1:35
        let shown = try #require(WorkoutDisplay(running, age: 0, restKinds: []))
        #expect(shown.next == "Done when you get there · Next: Walk")
        #expect(shown.times == "2:05 elapsed · 0:06 left after this step")
        var walking = running
        (walking.open, walking.segmentIndex, walking.segmentKind, walking.segmentLabel) = (false, 2, "walk", "Walk")
        (walking.segmentDuration, walking.segmentRemaining, walking.segmentDistance) = (3_000_000, 2_000_000, 0)
        (walking.elapsed, walking.remaining) = (126_000_000, 5_000_000)
        let walked = try #require(WorkoutDisplay(walking, age: 0, restKinds: []))
        #expect(walked.times == "2:06 elapsed · 0:05 left")
        #expect(abs(walked.planProgress - 1.0 / 6) < 1e-9)
    }
}

import ArgumentParser
import IntervalCore
import IntervalCtlCommon

/// `intervalctl calc`: time, distance or pace, from the other two (docs/reference.md §2).
struct CalcCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calc",
        abstract: "Solve a run's time, distance or pace from the other two.",
        discussion: """
            Examples: 'intervalctl calc 10mi @ 9:00/mi' prints 1:30:00; 'intervalctl calc 5km in 25:00' prints \\
            5:00/km, 12.0 km/h; 'intervalctl calc 45:00 @ 5:30/km' prints the distance. Distances, times and paces \\
            are written as in plans (docs/plan-language.md). Answers and splits are in miles when the distance \\
            (or, without one, the pace) is.
            """
    )

    @Argument(help: "Two of a distance (5km, 10mi), a time (25:00, in 1h) and a pace (@ 5:00/km, @ 10 km/h).")
    var terms: [String]

    @Flag(help: "Also print the time at each kilometre (or mile) and at the end.")
    var splits = false

    @Flag(help: "Print one JSON object: every unit of the three, and the splits with --splits.")
    var json = false

    func run() throws {
        // The user's decimal separator (10,5km in German), as the window's calculator reads it.
        let text = Localization.decimalInput(terms.joined(separator: " "))
        let given: RunCalculation.Given
        do {
            given = try PlanParser.parseRun(text, origin: "<calc>")
        } catch {
            Console.error("\(error)\n")
            throw ExitStatus.invalidPlan
        }
        guard let calculation = RunCalculation(given) else {
            Console.error(tr("intervalctl: error: {message}", ["message": tr("That run cannot be solved.")]) + "\n")
            throw ExitStatus.invalidPlan
        }
        if json {
            Console.output(calculation.json(splits: splits) + "\n")
            return
        }
        Console.print(calculation.answer)
        if splits { Console.print(calculation.splitsText) }
    }
}

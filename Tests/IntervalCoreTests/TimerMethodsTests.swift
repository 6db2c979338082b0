import IntervalCore
import Testing

/// The typed description of `org.intervald.Timer1`'s methods: what the introspection, the server and the client read.
struct TimerMethodsTests {
    @Test func everyMethodIsInTheInterfaceOnceWithItsArgumentsInOrder() {
        let names = TimerMethods.all.map { $0.name }
        #expect(Set(names).count == names.count)
        #expect(BusNames.timerInterface.methods.map(\.name) == names)
        for method in TimerMethods.all {
            #expect(BusNames.timerInterface.methods.contains(method.member), "\(method.name)")
        }
        guard case .method(_, let arguments, let results, _) = TimerMethods.Start.member else {
            Issue.record("Start is a method")
            return
        }
        #expect(arguments == [.init("plan", "s"), .init("origin", "s"), .init("replace", "b")])
        #expect(results.isEmpty)
        guard case .method(_, _, let problems, _) = TimerMethods.ReloadSettings.member else {
            Issue.record("ReloadSettings is a method")
            return
        }
        #expect(problems == [.init("problems", "as")])
    }

    @Test func aCallsValuesFillABlankCallOfItsTypeBackToTheSameCall() {
        let start = TimerMethods.Start(plan: "8x(30s run, 30s walk)", origin: "/p/g.plan", replace: true)
        #expect(start.values == [.string("8x(30s run, 30s walk)"), .string("/p/g.plan"), .boolean(true)])
        var decoded = TimerMethods.Start()
        for (field, value) in zip(TimerMethods.Start.arguments, start.values) {
            #expect(field.assign(value, to: &decoded))
        }
        #expect(decoded.values == start.values)
        // A value of another type than the field's is not stored.
        #expect(!TimerMethods.Start.arguments[2].assign(.string("yes"), to: &decoded))
        #expect(decoded.replace)

        let reply = TimerMethods.ReloadSettings.Reply(problems: ["s.toml:2: volume: …"])
        var read = TimerMethods.ReloadSettings.Reply()
        TimerMethods.ReloadSettings.Reply.results[0].assign(reply.values[0], to: &read)
        #expect(read == reply)
    }

    @Test func onlyThePlanTextIsCheckedForSizeWithTheOriginInItsMessage() throws {
        let checked = TimerMethods.all.flatMap { method in method.arguments(checkingSize: true) }
        #expect(checked == ["Start.plan"])
        let plan = try #require(TimerMethods.Start.arguments.first?.checkSize)
        var call = TimerMethods.Start()
        call.origin = "/p/big.plan"
        #expect(throws: Never.self) { try plan(WorkoutSession.maximumPlanTextBytes, call) }
        do throws(TimerCommandError) {
            try plan(WorkoutSession.maximumPlanTextBytes + 1, call)
            Issue.record("one byte over the limit must be refused")
        } catch {
            #expect(error.code == .invalidPlan)
            #expect(error.message.hasPrefix("/p/big.plan: error: the plan is"))
        }
    }

    /// Each refusal a method lists is documented where a caller reads it: in the method's line, or in the error's.
    @Test func everyRefusalOfAMethodIsDocumented() {
        for method in TimerMethods.all {
            for code in method.refusals {
                let shortName = code.rawValue.split(separator: ".").last.map(String.init) ?? code.rawValue
                #expect(
                    method.doc.contains("`\(shortName)`") || code.doc.contains("`\(method.name)`"),
                    "\(method.name) answers \(shortName)")
            }
        }
        let refused = Set(TimerMethods.all.flatMap { $0.refusals })
        #expect(refused == Set(TimerCommandError.Code.allCases))
    }
}

extension TimerMethod {
    /// "Method.argument" for each argument whose size is (or is not) checked.
    static func arguments(checkingSize: Bool) -> [String] {
        arguments.filter { ($0.checkSize != nil) == checkingSize }.map { "\(name).\($0.name)" }
    }
}

import Testing
@testable import IntervalCore

@Test func busNamesMatchSpec() {
    #expect(BusNames.service == "org.intervald.Timer1")
}

import IntervalCore
import Testing

@Suite struct LocaleDateFormatsTests {
    /// glibc's D_FMT of each locale, and what the chart's axis writes.
    @Test(arguments: [
        ("%m/%d/%Y", "%m/%d"),  // en_US
        ("%d/%m/%y", "%d/%m"),  // en_GB, es_ES
        ("%d.%m.%Y", "%d.%m."),  // de_DE
        ("%d/%m/%Y", "%d/%m"),  // fr_FR
        ("%Y-%m-%d", "%m-%d"),  // sv_SE
        ("%F", "%m-%d"),
        ("%D", "%m/%d"),
        ("%Y年%m月%d日", "%m月%d日"),  // ja_JP
        ("%e %B", "%e %B"),  // no year: as it is
    ]) func theDateWithoutItsYear(_ format: String, _ expected: String) {
        #expect(LocaleDateFormats.dayAndMonth(from: format) == expected)
    }

    @Test(arguments: [
        ("%H:%M:%S", "%H:%M"),  // de_DE, fr_FR
        ("%r", "%I:%M %p"),  // en_US
        ("%T", "%H:%M"),  // es_ES
        ("%Hh%M", "%Hh%M"),
    ]) func theTimeWithoutItsSeconds(_ format: String, _ expected: String) {
        #expect(LocaleDateFormats.hoursAndMinutes(from: format) == expected)
    }
}

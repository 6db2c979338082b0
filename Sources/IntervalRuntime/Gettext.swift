import CRuntimeShims
import Glibc
import IntervalCore

/// gettext through glibc (docs/reference.md §9): the user's locale, the `intervald` text domain bound to the install's
/// locale directory, and ``Localization`` pointed at `dgettext`/`dngettext`.
public enum Gettext {
    public static let domain = "intervald"

    /// Sets the process's locale from the environment (`LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`, as gettext reads
    /// them), except `LC_NUMERIC`, which stays "C" so that no C library reads or writes numbers the user's way;
    /// the user's decimal separator goes to ``Localization`` for text output instead. Call first thing in `main`.
    ///
    /// The catalogs are looked up in `$INTERVALD_LOCALEDIR` if set (tests, a build tree), else in `share/locale`
    /// beside the executable's `bin` (the install's prefix).
    public static func install(environment: [String: String]) {
        _ = setlocale(LC_ALL, "")
        let separator = userDecimalSeparator()
        _ = setlocale(LC_NUMERIC, "C")
        let directory = environment["INTERVALD_LOCALEDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? installedDirectory()
        if let directory {
            _ = ir_bindtextdomain(domain, directory)
        }
        _ = ir_bind_textdomain_codeset(domain, "UTF-8")
        Localization.install(
            Localization.Catalog(
                // Without a translation, gettext returns the msgid's own pointer: it is copied while that C string lives.
                singular: { msgid in msgid.withCString { String(cString: ir_dgettext(domain, $0)) } },
                plural: { singular, plural, count in
                    singular.withCString { one in
                        plural.withCString { many in
                            String(cString: ir_dngettext(domain, one, many, UInt(clamping: max(count, 0))))
                        }
                    }
                },
                decimalSeparator: separator))
    }

    /// The radix character of the locale the environment names for `LC_NUMERIC`.
    private static func userDecimalSeparator() -> String {
        guard let radix = localeconv()?.pointee.decimal_point else { return "." }
        let text = String(cString: radix)
        return text.isEmpty ? "." : text
    }

    /// `PREFIX/share/locale` for an executable in `PREFIX/bin`, when it exists.
    private static func installedDirectory() -> String? {
        InstallPrefix.existing("share/locale")
    }
}

/// Where this executable is installed: `PREFIX` for `PREFIX/bin/intervald`.
public enum InstallPrefix {
    /// `PREFIX/relativePath`, when it exists and can be read; nil otherwise (e.g. a build-tree binary).
    public static func existing(_ relativePath: String) -> String? {
        guard let path = path(relativePath) else { return nil }
        return access(path, R_OK) == 0 ? path : nil
    }

    /// `PREFIX/relativePath`, whether it exists or not; nil when this executable cannot be found.
    public static func path(_ relativePath: String) -> String? {
        guard let executable = executablePath() else { return nil }
        let prefix = executable.split(separator: "/", omittingEmptySubsequences: false).dropLast(2)
            .joined(separator: "/")
        return prefix + "/" + relativePath
    }

    /// The program `name` installed beside this executable (`PREFIX/bin/intervalctl`, or the build tree's), or plain
    /// `name` for the search path when this executable cannot be found.
    public static func sibling(_ name: String) -> String {
        guard let executable = executablePath(), let slash = executable.lastIndex(of: "/") else { return name }
        return String(executable[...slash]) + name
    }
}

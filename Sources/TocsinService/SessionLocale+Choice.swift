import CGio
import CTocsinSystem
import Glibc
import TocsinBase

/// Which locale the texts take from the locale variables, and where those
/// come from.
extension SessionLocale {
    /// gettext's order: `LC_ALL`, else `LC_MESSAGES` (`LC_TIME` for times),
    /// else `LANG`; then `LANGUAGE`, unless the messages' locale is C, picks
    /// the first of its languages that Tocsin speaks (English is the
    /// texts' own) and that has a locale installed to carry it.
    static func choice(_ variables: [String: String], catalogs: (String) -> Bool,
                       installed: (String) -> Bool) -> Choice {
        func value(_ name: String) -> String? { variables[name].flatMap { $0.isEmpty ? nil : $0 } }
        let all = value("LC_ALL")
        let lang = value("LANG") ?? "C"
        var messages = all ?? value("LC_MESSAGES") ?? lang
        let choice = Choice(base: all ?? lang, messages: messages, time: all ?? value("LC_TIME") ?? lang)
        guard !isC(messages), let languages = value("LANGUAGE") else { return choice }
        for entry in languages.split(separator: ":").map(String.init) {
            let plain = String(entry.prefix { $0 != "." && $0 != "@" })  // de_AT of de_AT.UTF-8
            let language = String(plain.prefix { $0 != "_" })
            guard catalogs(plain) || catalogs(language) else {
                if language == "en" || isC(entry) { messages = "C.UTF-8"; break }
                continue
            }
            let candidates = [languageOf(messages) == language ? messages : nil,
                              plain.contains("_") ? plain + ".UTF-8" : nil,
                              language + "_" + language.uppercased() + ".UTF-8"]
            if let found = candidates.compactMap({ $0 }).first(where: installed) {
                messages = found
                break
            }
        }
        return Choice(base: choice.base, messages: messages, time: choice.time)
    }

    private static func isC(_ locale: String) -> Bool {
        locale == "C" || locale == "POSIX" || locale.hasPrefix("C.")
    }

    private static func languageOf(_ locale: String) -> String {
        String(locale.prefix { $0 != "_" && $0 != "." && $0 != "@" })
    }

    /// True if Tocsin has a translation for this language (`de`, `de_AT`).
    static func hasCatalog(_ language: String) -> Bool {
        access(Localized.folder + "/" + language + "/LC_MESSAGES/tocsin.mo", R_OK) == 0
    }

    static func isInstalled(_ locale: String) -> Bool {
        tocsin_thread_locale_exists(locale) != 0
    }

    /// Asks for the user manager's environment (`org.freedesktop.systemd1.Manager`'s
    /// `Environment`); `then` gets it on this thread's loop, or nil if there
    /// is no user manager on the bus or it did not answer within 250 ms.
    static func askManagerEnvironment(_ connection: OpaquePointer, then: @escaping ([String: String]?) -> Void) {
        callAsync(connection, "org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.DBus.Properties",
                  "Get", Variant.tuple([g_variant_new_string("org.freedesktop.systemd1.Manager"),
                                        g_variant_new_string("Environment")]),
                  flags: G_DBUS_CALL_FLAGS_NO_AUTO_START, timeout: 250) { reply in
            then(reply.value.flatMap(environment(in:)))
        }
    }

    /// The environment in a reply to `Get(Manager, Environment)`.
    private static func environment(in reply: OpaquePointer) -> [String: String]? {
        guard let boxed = g_variant_get_child_value(reply, 0) else { return nil }
        defer { g_variant_unref(boxed) }
        guard let list = g_variant_get_variant(boxed) else { return nil }
        defer { g_variant_unref(list) }
        guard String(cString: g_variant_get_type_string(list)) == "as" else { return nil }
        var environment: [String: String] = [:]
        for index in 0..<g_variant_n_children(list) {
            guard let item = g_variant_get_child_value(list, index) else { continue }
            let line = String(cString: g_variant_get_string(item, nil))
            g_variant_unref(item)
            guard let equals = line.firstIndex(of: "=") else { continue }
            environment[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return environment
    }
}

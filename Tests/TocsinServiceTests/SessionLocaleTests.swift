import Testing
@testable import TocsinService

/// Which locale the service's texts take from the session's variables:
/// gettext's order, with LANGUAGE choosing among the languages Tocsin speaks.
@Suite struct SessionLocaleTests {
    /// Tocsin speaks de, fr, es; these locales are installed.
    private func choice(_ variables: [String: String]) -> SessionLocale.Choice {
        let installed: Set = ["de_DE.UTF-8", "de_AT.UTF-8", "fr_FR.UTF-8", "es_ES.UTF-8", "en_US.UTF-8", "C.UTF-8"]
        return SessionLocale.choice(variables, catalogs: { ["de", "fr", "es"].contains($0) },
                                    installed: { installed.contains($0) })
    }

    @Test func lcAllOutranksTheRest() {
        let chosen = choice(["LC_ALL": "fr_FR.UTF-8", "LC_MESSAGES": "de_DE.UTF-8", "LANG": "es_ES.UTF-8"])
        #expect(chosen == .init(base: "fr_FR.UTF-8", messages: "fr_FR.UTF-8", time: "fr_FR.UTF-8"))
    }

    @Test func messagesAndTimesEachOutrankLang() {
        let chosen = choice(["LC_MESSAGES": "de_DE.UTF-8", "LC_TIME": "en_US.UTF-8", "LANG": "es_ES.UTF-8"])
        #expect(chosen == .init(base: "es_ES.UTF-8", messages: "de_DE.UTF-8", time: "en_US.UTF-8"))
    }

    @Test func nothingSetIsC() {
        #expect(choice([:]) == .init(base: "C", messages: "C", time: "C"))
        #expect(choice(["LANG": "", "LC_ALL": ""]) == .init(base: "C", messages: "C", time: "C"))
    }

    @Test func languageTakesTheFirstLanguageTocsinSpeaks() {
        // Italian has no translation: French, through its usual locale.
        let chosen = choice(["LANGUAGE": "it:fr:de", "LANG": "de_DE.UTF-8"])
        #expect(chosen == .init(base: "de_DE.UTF-8", messages: "fr_FR.UTF-8", time: "de_DE.UTF-8"))
        // The session's own locale when it is of that language (Austrian German).
        #expect(choice(["LANGUAGE": "de", "LANG": "de_AT.UTF-8"]).messages == "de_AT.UTF-8")
        #expect(choice(["LANGUAGE": "de_AT:de", "LANG": "fr_FR.UTF-8"]).messages == "de_AT.UTF-8")
    }

    @Test func englishInLanguageIsEnglish() {
        #expect(choice(["LANGUAGE": "en_GB:de", "LANG": "de_DE.UTF-8"]).messages == "C.UTF-8")
    }

    @Test func languageIsIgnoredInC() {
        // As gettext does: LANGUAGE only picks among languages once a locale is set.
        #expect(choice(["LANGUAGE": "de", "LANG": "C.UTF-8"]).messages == "C.UTF-8")
    }

    @Test func aLanguageWithoutAnInstalledLocaleIsPassedOver() {
        let chosen = SessionLocale.choice(["LANGUAGE": "es:fr", "LANG": "de_DE.UTF-8"],
                                          catalogs: { _ in true }, installed: { $0 == "fr_FR.UTF-8" })
        #expect(chosen.messages == "fr_FR.UTF-8")
        #expect(choice(["LANGUAGE": "it:pt", "LANG": "de_DE.UTF-8"]).messages == "de_DE.UTF-8")
    }
}

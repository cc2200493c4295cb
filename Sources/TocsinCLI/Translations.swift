import Glibc
import TocsinBase

/// The translations the command reads (po/), for `tocsin doctor`.
package enum Translations {
    /// "translations: /usr/share/locale (de, es, fr); messages in Deutsch": where
    /// the command reads them, the languages there, and the one it speaks.
    package static func doctorLine() -> String {
        let folder = Localized.folder
        var languages: [String] = []
        if let directory = opendir(folder) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if !name.hasPrefix("."), access("\(folder)/\(name)/LC_MESSAGES/tocsin.mo", R_OK) == 0 { languages.append(name) }
            }
            closedir(directory)
        }
        // TRANSLATORS: the name of your language, in it ("Deutsch"): tocsin doctor says which it speaks.
        let speaking = tr("English")
        return "translations: \(folder) (\(languages.isEmpty ? "none" : languages.sorted().joined(separator: ", "))); "
            + "messages in \(speaking)"
    }
}

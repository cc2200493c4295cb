/// Why a command cannot go on: one line for standard error (without the
/// "tocsin: " that `main` puts first) and the exit status. Library code
/// throws it; only `main` prints it and exits.
package struct CommandFailure: Error, Equatable, CustomStringConvertible {
    package var message: String
    package var status: Int32

    package init(_ message: String, status: Int32 = ExitStatus.failure) {
        self.message = message
        self.status = status
    }

    package var description: String { message }
}

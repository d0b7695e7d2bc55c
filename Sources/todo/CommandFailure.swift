import Foundation

/// A failed command: ArgumentParser prints the message after "Error: " on standard error
/// and exits with status 1.
struct CommandFailure: Error, LocalizedError {
    let message: String

    init(_ message: String) {
        self.message = message
    }

    var errorDescription: String? { message }

    /// An error as a sentence: the data layer's own, or Core Data's description (a
    /// validation rule, a store that cannot be opened) without the NSError decoration.
    static func describe(_ error: any Error) -> String {
        if let error = error as? LocalizedError, let description = error.errorDescription {
            return description
        }
        let error = error as NSError
        if let reason = error.userInfo[NSLocalizedDescriptionKey] as? String {
            return reason
        }
        return error.localizedDescription
    }
}

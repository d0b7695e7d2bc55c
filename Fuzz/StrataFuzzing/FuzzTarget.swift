import Foundation

/// One kind of input Strata reads from outside (a predicate's format string, a model file, a
/// store file, a sync message, an import file), driven through Strata's own API with what must
/// hold for every input.
///
/// The same entry points serve the libFuzzer harness (`strata-fuzz`, built by `scripts/fuzz`)
/// and the unit tests that replay the committed seeds and crash reproducers on every `swift test`
/// (`Fuzz/Corpus/<name>/`, `Fuzz/Regressions/<name>/`).
///
/// ```swift
/// try FuzzTarget.named("predicate")?.run(Data("name BEGINSWITH 'A'".utf8))
/// ```
public struct FuzzTarget: Sendable {
    /// The name the harness and the corpus folders use (`predicate`, `store-file`…).
    public let name: String
    /// Runs one input and says whether Strata took it. An input may deserve an error (it is
    /// malformed): that error is caught inside, and only checked to be the typed error the API
    /// promises. What throws is a `FuzzFinding`: a wrong kind of error, a broken round trip, a
    /// changed file.
    public let run: @Sendable (Data) throws(FuzzFinding) -> FuzzOutcome

    public init(name: String, run: @escaping @Sendable (Data) throws(FuzzFinding) -> FuzzOutcome) {
        self.name = name
        self.run = run
    }

    /// Every target, in the order `scripts/fuzz` runs them.
    public static let all: [FuzzTarget] = [
        predicate, modelXML, compiledModel, mappingModel, storeFile, syncWire, storeImport,
    ]

    public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// What Strata made of an input that broke nothing: the replay tests require every seed to be
/// taken, so that a seed gone stale (refused at its first check) does not fuzz the shallows.
public enum FuzzOutcome: Sendable, Equatable {
    /// Read (and opened, migrated, imported…) as far as the target drives it.
    case taken
    /// Refused with the typed error it deserves.
    case refused
}

/// Something that must hold for every input did not: the harness stops on it (a crash file
/// for libFuzzer), the replay tests record it as a failure.
public struct FuzzFinding: Error, CustomStringConvertible {
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// The checks the targets share.
enum FuzzCheck {
    /// Errors of Core Data's API must be `NSError`s in `NSCocoaErrorDomain` (Core Data's codes
    /// where Apple has them), never another domain or a bare Swift error.
    static func requireCocoaError(_ error: any Error, _ operation: String) throws(FuzzFinding) {
        let nsError = error as NSError
        guard nsError.domain == NSCocoaErrorDomain else {
            throw FuzzFinding(
                "\(operation) threw \(type(of: error)) in domain \(nsError.domain), not NSCocoaErrorDomain: \(error)")
        }
    }

    /// A file must keep every byte: the finding names the first that changed.
    static func requireUnchanged(_ url: URL, _ original: Data?, _ what: String) throws(FuzzFinding) {
        let now = FileManager.default.contents(atPath: url.path)
        guard now != original else { return }
        guard let now, let original else { throw FuzzFinding("\(what) was \(now == nil ? "removed" : "made")") }
        let offset =
            zip(now, original).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(now.count, original.count)
        throw FuzzFinding("\(what) was changed, from byte \(offset) (\(original.count) bytes, now \(now.count))")
    }

    static func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(FuzzFinding) {
        if !condition { throw FuzzFinding(message()) }
    }
}

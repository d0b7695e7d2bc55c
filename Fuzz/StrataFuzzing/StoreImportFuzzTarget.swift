import Foundation
import Strata

@testable import StrataToolKit

extension FuzzTarget {
    /// The bytes as a `strata store import` file, imported as the command imports it: into a new
    /// store, and into a copy of a store that has objects. A file that cannot be imported gives
    /// the tool's one-line failure (or Core Data's error underneath) and changes nothing: no new
    /// store is left behind, an existing one keeps every byte.
    public static let storeImport = FuzzTarget(name: "store-import") { data throws(FuzzFinding) in
        let entities: [String: [[String: Any]]]
        do {
            entities = try GraphImport.parse(data, path: "fuzz.json")
        } catch {
            try StoreImportFuzzing.requireToolError(error)
            return .refused
        }
        let model = try FuzzFixtures.libraryModelFile.get()
        let scratch = try FuzzScratch()
        let fresh = scratch.url("New.sqlite")
        var outcome = FuzzOutcome.refused
        do {
            _ = try StoreImportCommand.importAtomically(entities, store: fresh.path, modelPath: model.path)
            outcome = .taken
        } catch {
            try StoreImportFuzzing.requireToolError(error)
            try FuzzCheck.require(!FileManager.default.fileExists(atPath: fresh.path), "a failed import left a new store")
        }
        let existing = scratch.url("Existing.sqlite")
        try FuzzFixtures.copyStore(try FuzzFixtures.libraryStore.get(), to: existing)
        let original = FileManager.default.bytes(of: existing)
        do {
            _ = try StoreImportCommand.importAtomically(entities, store: existing.path, modelPath: model.path)
            outcome = .taken
        } catch {
            try StoreImportFuzzing.requireToolError(error)
            try FuzzCheck.requireUnchanged(existing, original, "a store a failed import was to change")
        }
        return outcome
    }
}

enum StoreImportFuzzing {
    /// The tool reports its own failures as `StoreToolFailure`s, and Core Data's as they are.
    static func requireToolError(_ error: any Error) throws(FuzzFinding) {
        if error is StoreToolFailure { return }
        try FuzzCheck.requireCocoaError(error, "store import")
    }
}

import ArgumentParser
import Foundation
import GRDB
import Strata

/// `strata store check STORE [--model M]`: SQLite's integrity and Core Data's invariants.
struct StoreCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a store's SQLite integrity and Core Data's invariants; exit 1 listing each defect.",
        discussion: """
            Checks: PRAGMA integrity_check; Z_PRIMARYKEY.Z_MAX at or above the largest Z_PK of each \
            entity hierarchy; Z_ENT values naming the table's entity or a subentity; to-one foreign \
            keys and join-table rows pointing at rows that exist; external data files present for \
            each marker, and no file that no row names. Foreign keys need the model (--model, or \
            the store's cached one).

            Examples:
              strata store check Todos.sqlite
              strata store check Todos.sqlite --model Todos.xcdatamodeld --json
            """
    )

    @OptionGroup var arguments: StoreArguments

    @Flag(help: "Print JSON for scripts.")
    var json = false

    func run() throws {
        var defects: [StoreDefect] = []
        try StoreTool.run {
            let original = try StoreOpening.existingStore(arguments.store)
            let copy = try StoreOpening.temporaryCopy(of: original)
            defer { try? FileManager.default.removeItem(at: copy.folder) }
            let resolvedModel: NSManagedObjectModel?
            if let model = arguments.model {
                resolvedModel = try StoreOpening.model(path: model, storeURL: nil, metadata: nil).model
            } else {
                resolvedModel = try? NSManagedObjectModel.cachedModel(ofStoreAt: copy.url)
                if resolvedModel == nil {
                    StandardError.write(
                        "strata: note: no model (no --model, no cached model): to-one foreign keys are not checked\n")
                }
            }
            var configuration = Configuration()
            configuration.readonly = true
            do {
                let database = try DatabaseQueue(path: copy.url.path, configuration: configuration)
                defer { try? database.close() }
                guard try database.read({ try $0.tableExists("Z_PRIMARYKEY") }) else {
                    throw StoreToolFailure("\(arguments.store) is not a Core Data store (no Z_PRIMARYKEY table)")
                }
                let checks = StoreChecks(
                    database: database, model: resolvedModel, externalData: StoreOpening.externalDataFolder(of: original),
                    progress: ProgressBar("check", total: 5))
                defects = try checks.run()
            } catch let failure as StoreToolFailure {
                throw failure
            } catch {
                defects = [StoreDefect(kind: "integrity", message: "SQLite cannot read the file: \(StoreTool.describe(error))")]
            }
            if json {
                let items = defects.map { ["kind": $0.kind, "message": $0.message] }
                print(try JSONText.document(["ok": defects.isEmpty, "defects": items] as [String: Any]))
            } else if defects.isEmpty {
                print("ok: no defects found in \(arguments.store)")
            } else {
                for defect in defects { print("\(defect.kind): \(defect.message)") }
                print("\(defects.count) \(defects.count == 1 ? "defect" : "defects") found in \(arguments.store)")
            }
        }
        if !defects.isEmpty { throw ExitCode.failure }
    }
}

import Foundation
import GRDB
import Testing

@testable import Strata

/// A row SQLite refuses in the middle of a save (here: triggers another program added to the
/// store, raising an abort on one title). The save writes its rows with SQLite's step directly;
/// a refused row must fail the whole save with SQLite's message, write nothing, keep the
/// context's changes, and leave the connection's statements fit for the next save.
@Suite struct RowWriteFailureTests {
    private let scratch = ObjectGraphTests.ScratchDirectory()
    private let model = ObjectGraphTests.libraryModel()

    private func addRefusingTriggers(to url: URL) throws {
        try DatabaseQueue(path: url.path).write { db in
            try db.execute(
                sql: """
                    CREATE TRIGGER refuse_insert BEFORE INSERT ON ZNOVEL WHEN NEW.ZTITLE = 'refused'
                    BEGIN SELECT RAISE(ABORT, 'insert refused'); END;
                    CREATE TRIGGER refuse_update BEFORE UPDATE ON ZNOVEL WHEN NEW.ZTITLE = 'refused'
                    BEGIN SELECT RAISE(ABORT, 'update refused'); END;
                    CREATE TRIGGER refuse_delete BEFORE DELETE ON ZNOVEL WHEN OLD.ZTITLE = 'undeletable'
                    BEGIN SELECT RAISE(ABORT, 'delete refused'); END;
                    """)
        }
    }

    /// The SQLite message under the save's error, which must be Core Data's error for a
    /// constraint SQLite enforced (133021), with SQLite's code 19 (`SQLITE_CONSTRAINT`).
    private func refusal(of context: NSManagedObjectContext) -> String? {
        do {
            try context.save()
            return nil
        } catch let error as NSError {
            #expect(error.domain == NSCocoaErrorDomain)
            #expect(error.code == NSManagedObjectConstraintMergeError)
            let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
            #expect(underlying?.domain == NSSQLiteErrorDomain)
            #expect(underlying?.code == 19)
            return underlying?.localizedDescription
        }
    }

    @Test func aRefusedRowFailsTheWholeSaveAndTheNextSaveWrites() throws {
        let url = scratch.file("refusing.sqlite")
        let stack = try ObjectGraphTests.Stack(model, at: url)
        let context = stack.newContext()
        try context.performAndWait {
            let kept = Novel(context: context)
            kept.title = "kept"
            let fixed = Novel(context: context)
            fixed.title = "undeletable"
            try context.save()
        }
        try addRefusingTriggers(to: url)

        try context.performAndWait {
            // An insert refused after another row of the same save was written.
            let first = Novel(context: context)
            first.title = "first"
            let refused = Novel(context: context)
            refused.title = "refused"
            let message = refusal(of: context)
            #expect(message?.contains("insert refused") == true)
            #expect(try ObjectGraphTests.novelTitles(in: url) == ["kept", "undeletable"])
            #expect(first.isInserted && refused.isInserted && refused.objectID.isTemporaryID)

            refused.title = "accepted"
            try context.save()
            #expect(try ObjectGraphTests.novelTitles(in: url) == ["accepted", "first", "kept", "undeletable"])
            #expect(!refused.objectID.isTemporaryID)

            // An update refused, then written once the value changes.
            let kept = try #require(try context.fetch(NSFetchRequest<Novel>(entityName: "Novel")).first { $0.title == "kept" })
            kept.title = "refused"
            first.year = 1999
            #expect(refusal(of: context)?.contains("update refused") == true)
            #expect(try ObjectGraphTests.novelTitles(in: url) == ["accepted", "first", "kept", "undeletable"])
            #expect(kept.isUpdated && kept.title == "refused")
            kept.title = "renamed"
            try context.save()
            #expect(try ObjectGraphTests.novelTitles(in: url) == ["accepted", "first", "renamed", "undeletable"])

            // A delete refused: the object stays deleted in the context, the row stays.
            let fixed = try #require(
                try context.fetch(NSFetchRequest<Novel>(entityName: "Novel")).first { $0.title == "undeletable" })
            context.delete(fixed)
            context.delete(first)
            #expect(refusal(of: context)?.contains("delete refused") == true)
            #expect(try ObjectGraphTests.novelTitles(in: url) == ["accepted", "first", "renamed", "undeletable"])
            #expect(fixed.isDeleted && first.isDeleted)
            context.rollback()
            context.delete(first)
            try context.save()
            #expect(try ObjectGraphTests.novelTitles(in: url) == ["accepted", "renamed", "undeletable"])
        }
    }
}

import Foundation
import StrataSyncProtocol
import Testing

@testable import StrataSyncServer

/// The merge rules on their own (no database): per-field last writer wins by clock, deletes
/// win over older updates, and any order of the same changes gives the same record.
@Suite("Record merge")
struct RecordMergeTests {
    /// A record to merge into, held by reference so that `#expect` can call the mutating merge.
    private final class Merged {
        var record = StoredRecord(recordType: "CD_Todo", recordName: "t1")

        func apply(_ change: RecordChange) -> Bool { record.apply(change) }
    }

    @Test("the sole writer is the one client behind every field clock and the delete clock, if there is one")
    func soleWriter() {
        let merged = Merged()
        #expect(merged.record.soleWriter == nil)
        _ = merged.apply(upsert("t1", ["CD_title": .string("a"), "CD_done": .bool(false)], at: clock(10)))
        #expect(merged.record.soleWriter == "a")
        _ = merged.apply(upsert("t1", ["CD_n": .int(1)], at: clock(11, "b")))
        #expect(merged.record.soleWriter == nil)
        // b's delete drops every field; a's later edit brings the record back beside b's delete.
        _ = merged.apply(delete("t1", at: clock(12, "b")))
        #expect(merged.record.deleted && merged.record.soleWriter == "b")
        _ = merged.apply(upsert("t1", ["CD_title": .string("again")], at: clock(13)))
        #expect(!merged.record.deleted && merged.record.soleWriter == nil)
        _ = merged.apply(delete("t1", at: clock(14)))
        #expect(merged.record.soleWriter == "a")
    }

    @Test("a field takes a value only with a greater clock; an equal clock is the same write and changes nothing")
    func lastWriterWinsPerField() {
        let merged = Merged()
        #expect(merged.apply(upsert("t1", ["CD_title": .string("a"), "CD_done": .bool(false)], at: clock(10))))
        #expect(merged.apply(upsert("t1", ["CD_title": .string("b")], at: clock(20))))
        #expect(!merged.apply(upsert("t1", ["CD_title": .string("old"), "CD_done": .bool(true)], at: clock(5))))
        #expect(merged.record.fields == ["CD_title": .string("b"), "CD_done": .bool(false)])
        // Equal wall time and counter: the client ID breaks the tie, "b" > "a".
        #expect(merged.apply(upsert("t1", ["CD_title": .string("from b")], at: clock(20, "b"))))
        #expect(!merged.apply(upsert("t1", ["CD_title": .string("from a")], at: clock(20, "a"))))
        #expect(!merged.apply(upsert("t1", ["CD_title": .string("from b")], at: clock(20, "b"))))
        #expect(merged.record.fields["CD_title"] == .string("from b"))
        #expect(merged.record.clocks["CD_title"] == clock(20, "b"))
    }

    @Test("a delete wins over updates not newer than it; only a newer change brings the record back")
    func deleteWins() {
        let merged = Merged()
        _ = merged.apply(upsert("t1", ["CD_title": .string("a")], at: clock(10)))
        #expect(merged.apply(delete("t1", at: clock(20))))
        #expect(merged.record.deleted && merged.record.fields.isEmpty)
        #expect(!merged.apply(upsert("t1", ["CD_title": .string("late")], at: clock(15))))
        #expect(merged.record.deleted)
        #expect(!merged.apply(delete("t1", at: clock(18))))
        #expect(merged.apply(upsert("t1", ["CD_title": .string("back")], at: clock(30))))
        #expect(!merged.record.deleted)
        #expect(merged.record.fields == ["CD_title": .string("back")])
        // The newest delete's clock goes with the record that came back: clients drop the
        // links to it made before the delete.
        #expect(merged.record.state.deleteClock == clock(20))
        // Still older than the delete: ignored after the record came back too.
        #expect(!merged.apply(upsert("t1", ["CD_done": .bool(true)], at: clock(19))))
    }

    @Test("every order of the same changes gives the same record")
    func ordersConverge() {
        let changes: [RecordChange] = [
            upsert("t1", ["CD_title": .string("a"), "CD_n": .int(1)], at: clock(10, "x")),
            upsert("t1", ["CD_title": .string("b")], at: clock(12, "y")),
            delete("t1", at: clock(14, "z")),
            upsert("t1", ["CD_n": .int(2)], at: clock(16, "x")),
            upsert("t1", ["CD_title": .string("c")], at: clock(13, "x")),
        ]
        var expected: StoredRecord?
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var record = StoredRecord(recordType: "CD_Todo", recordName: "t1")
            for change in changes.shuffled(using: &generator) { _ = record.apply(change) }
            if let expected {
                #expect(record == expected)
            } else {
                expected = record
            }
        }
        #expect(expected?.fields == ["CD_n": .int(2)])
        #expect(expected?.deleted == false)
    }

    @Test("schema: new fields pass, another kind is a conflict, null fits every kind")
    func schema() throws {
        let schema = try SyncStore.checkedSchema([:], adding: [upsert("t1", ["CD_title": .string("a")], at: clock(1))])
        #expect(schema == ["CD_Todo": ["CD_title": .string]])
        let wider = try SyncStore.checkedSchema(
            schema, adding: [upsert("t1", ["CD_title": .null, "CD_n": .int(1)], at: clock(2))])
        #expect(wider == ["CD_Todo": ["CD_title": .string, "CD_n": .int]])
        #expect(throws: SyncError.self) {
            try SyncStore.checkedSchema(wider, adding: [upsert("t1", ["CD_n": .double(1)], at: clock(3))])
        }
    }
}

import Foundation
import Testing
import TodoKit

@Suite("IdReference")
struct IdReferenceTests {
    private let ids = [
        UUID(uuidString: "3F2A9C1D-0000-4000-8000-000000000001")!,
        UUID(uuidString: "3F2A9C1D-0000-4000-8000-000000000002")!,
        UUID(uuidString: "A0000000-0000-4000-8000-000000000000")!,
    ]

    @Test("a start shared by several ids is ambiguous, and names them")
    func ambiguous() throws {
        #expect(throws: TodoKitError.ambiguous(kind: "to-do", reference: "3f2a", matches: [ids[0], ids[1]])) {
            try IdReference.resolve("3f2a", among: ids, kind: "to-do")
        }
        #expect(try IdReference.resolve("3F2A9C1D-0000-4000-8000-000000000002", among: ids, kind: "to-do") == ids[1])
        #expect(try IdReference.resolve("a", among: ids, kind: "to-do") == ids[2])
    }

    @Test("text that is not hexadecimal is not an id")
    func notAnId() {
        #expect(throws: TodoKitError.notAnId("xyz")) { try IdReference.resolve("xyz", among: ids, kind: "to-do") }
        #expect(throws: TodoKitError.notAnId("")) { try IdReference.resolve("", among: ids, kind: "to-do") }
    }

    @Test("short ids are eight characters, more when two ids share them")
    func shortLength() {
        #expect(IdReference.shortLength(for: [ids[2]]) == 8)
        #expect(IdReference.shortLength(for: []) == 8)
        let length = IdReference.shortLength(for: ids)
        #expect(length == 36)
        #expect(IdReference.short(ids[0], length: 8) == "3f2a9c1d")
        let close = [UUID(uuidString: "3F2A9C1D-1000-4000-8000-000000000001")!, ids[0]]
        #expect(IdReference.shortLength(for: close) == 10)
        #expect(IdReference.short(close[0], length: 10) == "3f2a9c1d-1")
    }
}

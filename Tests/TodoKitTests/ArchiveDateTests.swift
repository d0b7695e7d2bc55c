import Foundation
import Testing
import TodoKit

/// Archive dates: ISO 8601 text when written, exact to the bit; numbers of seconds since
/// 2001 (what earlier versions wrote) still read.
@Suite("Archive dates")
struct ArchiveDateTests {
    private let id = UUID(uuidString: "3F2A9C1D-0000-4000-8000-000000000001") ?? UUID()

    private func archive(createdAt: Date) -> TodoArchive {
        let tag = TagModel(id: id, title: "home", createdAt: createdAt, updatedAt: createdAt.addingTimeInterval(1))
        return TodoArchive(tags: [tag], locations: [], todos: [])
    }

    private func writtenDates(_ archive: TodoArchive) throws -> [Any] {
        let json = try JSONSerialization.jsonObject(with: try archive.jsonData()) as? [String: Any]
        let tag = try #require((json?["tags"] as? [[String: Any]])?.first)
        return [tag["createdAt"] as Any, tag["updatedAt"] as Any]
    }

    @Test(
        "export writes ISO 8601 text that reads back as the same instant",
        arguments: [785_000_000.123456789, 0, -1.5, 1e-7, 785_000_000, 812_345_678.999_999_9])
    func isoRoundTrip(seconds: Double) throws {
        let date = Date(timeIntervalSinceReferenceDate: seconds)
        let written = try writtenDates(archive(createdAt: date))
        let text = try #require(written.first as? String)
        #expect(text.hasSuffix("Z") && text.contains("T"))
        // Any ISO 8601 reader finds the same second.
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: text.contains("."))
        let parsed = try style.parse(text).timeIntervalSinceReferenceDate
        #expect(parsed.rounded(.down) == seconds.rounded(.down))
        let read = try TodoArchive(jsonData: try archive(createdAt: date).jsonData())
        #expect(read.tags.first?.createdAt.timeIntervalSinceReferenceDate == seconds)
    }

    @Test("a known instant is written as its ISO 8601 text")
    func knownText() throws {
        let written = try writtenDates(archive(createdAt: Date(timeIntervalSinceReferenceDate: 785_000_000.5)))
        #expect(written.first as? String == "2025-11-16T15:33:20.500Z")
        #expect(written.last as? String == "2025-11-16T15:33:21.500Z")
    }

    @Test("an archive written before, with seconds since 2001, still imports")
    func legacyNumbers() throws {
        let legacy = #"""
            {"version": 1, "locations": [], "todos": [],
             "tags": [{"id": "3F2A9C1D-0000-4000-8000-000000000001", "title": "home",
                       "createdAt": 785000000.123456789, "updatedAt": 785000001}]}
            """#
        let read = try TodoArchive(jsonData: Data(legacy.utf8))
        #expect(read.tags.first?.createdAt == Date(timeIntervalSinceReferenceDate: 785_000_000.123456789))
        #expect(read.tags.first?.updatedAt == Date(timeIntervalSinceReferenceDate: 785_000_001))
        // Written again, it is ISO 8601.
        let text = try #require(try writtenDates(read).first as? String)
        #expect(text.hasPrefix("2025-11-16T15:33:20.123456") && text.hasSuffix("Z"))
    }
}

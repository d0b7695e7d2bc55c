import Foundation
import StrataSyncProtocol
import Testing

@testable import Strata

extension SyncTests {
    /// Clocks, record mapping and link names: the pieces the engine's decisions rest on.
    @Suite struct MappingTests {
        @Test func clockReadingsGrowEvenWhenTheWallClockStandsOrGoesBack() {
            var clock = SyncClock(node: "a")
            let first = clock.tick(now: 1000)
            let second = clock.tick(now: 1000)
            let third = clock.tick(now: 900)
            #expect(first == HybridLogicalClock(wallMilliseconds: 1000, counter: 0, node: "a"))
            #expect(second == HybridLogicalClock(wallMilliseconds: 1000, counter: 1, node: "a"))
            #expect(third == HybridLogicalClock(wallMilliseconds: 1000, counter: 2, node: "a"))
            #expect(first < second && second < third)
            #expect(clock.tick(now: 2000) == HybridLogicalClock(wallMilliseconds: 2000, counter: 0, node: "a"))
        }

        @Test func clockMovesPastEveryReadingSeenBeforeTheChange() {
            var clock = SyncClock(node: "a")
            _ = clock.tick(now: 1000)
            let remote = HybridLogicalClock(wallMilliseconds: 5000, counter: 7, node: "z")
            clock.observe(remote, at: 1000)
            let next = clock.tick(now: 1001)
            #expect(next > remote)
            #expect(next.node == "a")
            // An older reading leaves it alone.
            clock.observe(HybridLogicalClock(wallMilliseconds: 10, counter: 0, node: "b"), at: 1002)
            #expect(clock.tick(now: 0) > next)
        }

        /// An edit made offline at 2000 and exported after the device saw a reading of 3000 (at
        /// 4000) gets 2000: the edit made elsewhere at 3000 is the later one and wins.
        @Test func aChangeIsNotPushedPastReadingsSeenAfterIt() {
            var clock = SyncClock(node: "a")
            _ = clock.tick(now: 1000)
            let elsewhere = HybridLogicalClock(wallMilliseconds: 3000, counter: 0, node: "b")
            clock.observe(elsewhere, at: 4000)
            clock.eventTime = 2000
            let offline = clock.tick()
            #expect(offline == HybridLogicalClock(wallMilliseconds: 2000, counter: 0, node: "a"))
            #expect(offline < elsewhere)
            // A change made after the sighting is later than what was seen.
            clock.eventTime = 4500
            let after = clock.tick()
            #expect(after == HybridLogicalClock(wallMilliseconds: 4500, counter: 0, node: "a"))
            #expect(clock.sightings.isEmpty)
            // A remote reading ahead of this device's wall clock (skew) still orders a later
            // change after it.
            clock.observe(HybridLogicalClock(wallMilliseconds: 9000, counter: 3, node: "b"), at: 5000)
            #expect(clock.tick(now: 5001) == HybridLogicalClock(wallMilliseconds: 9000, counter: 4, node: "a"))
        }

        @Test func sightingsStayFewAndSurviveTheirEncoding() throws {
            var clock = SyncClock(node: "a")
            // Readings no newer than one seen before add nothing.
            clock.observe(HybridLogicalClock(wallMilliseconds: 50, counter: 0, node: "b"), at: 10)
            clock.observe(HybridLogicalClock(wallMilliseconds: 40, counter: 0, node: "c"), at: 11)
            clock.observe(HybridLogicalClock(wallMilliseconds: 60, counter: 0, node: "c"), at: 11)
            #expect(clock.sightings.map(\.reading.wallMilliseconds) == [50, 60])
            for n in 0..<(SyncClock.maximumSightings + 10) {
                clock.observe(HybridLogicalClock(wallMilliseconds: 100 + Int64(n), counter: 0, node: "b"), at: 20 + Int64(n))
            }
            #expect(clock.sightings.count == SyncClock.maximumSightings)
            #expect(clock.last.wallMilliseconds == 100 + 9)
            let text = try #require(clock.encodedSightings)
            #expect(SyncClock.sightings(from: text) == clock.sightings)
            #expect(SyncClock.sightings(from: "not json").isEmpty)
        }

        @Test func recordTypesAndNamesFollowCloudKitsMirroring() throws {
            let model = SyncTests.model()
            let item = try #require(model.entitiesByName["SyncItem"])
            #expect(SyncRecordMapping.recordType(of: item) == "CD_SyncItem")
            let name = SyncRecordMapping.newRecordName(for: item)
            #expect(name.hasPrefix("CD_SyncItem_"))
            #expect(UUID(uuidString: String(name.dropFirst("CD_SyncItem_".count))) != nil)
            #expect(SyncRecordMapping.newRecordName(for: item) != name)
            // Time-ordered UUIDs (version 7, RFC 9562): the time leads, names made later sort later.
            let start = Date(timeIntervalSince1970: 1_764_300_000.123)
            let names = (0..<50).map {
                SyncRecordMapping.newRecordName(for: item, at: start.addingTimeInterval(Double($0) / 500))
            }
            #expect(names == names.sorted())
            #expect(Set(names).count == 50)
            let uuid = try #require(UUID(uuidString: String(names[0].dropFirst("CD_SyncItem_".count))))
            #expect(uuid.uuidString.hasPrefix("019AC879-8B7B-7"))
            #expect(["8", "9", "A", "B"].contains(uuid.uuidString.dropFirst(19).prefix(1)))
            let fields = SyncRecordMapping.syncedAttributes(of: item).map(SyncRecordMapping.field(of:)).sorted()
            #expect(fields == ["CD_attachment", "CD_done", "CD_due", "CD_rank", "CD_title"])
            let relationships = SyncRecordMapping.syncedRelationships(of: item).map(\.name).sorted()
            #expect(relationships == ["list", "tags"])
            // The to-many side of a one-to-many travels on the other side.
            let list = try #require(model.entitiesByName["SyncList"])
            #expect(SyncRecordMapping.syncedRelationships(of: list).isEmpty)
            #expect(SyncRecordMapping.form(of: try #require(item.relationshipsByName["list"])) == .reference)
            #expect(SyncRecordMapping.form(of: try #require(item.relationshipsByName["tags"])) == .links)
        }

        @Test func attributeValuesRoundTripThroughFieldValues() throws {
            let item = try #require(SyncTests.model().entitiesByName["SyncItem"])
            func roundTrip(_ name: String, _ value: Any) throws -> Any? {
                let attribute = try #require(item.attributesByName[name])
                let field = try #require(SyncRecordMapping.fieldValue(value, of: attribute))
                return SyncRecordMapping.attributeValue(field, of: attribute)
            }
            #expect(try roundTrip("title", "Buy milk") as? String == "Buy milk")
            #expect((try roundTrip("rank", NSNumber(value: 42)) as? NSNumber)?.int64Value == 42)
            #expect((try roundTrip("done", NSNumber(value: true)) as? NSNumber)?.boolValue == true)
            let date = Date(timeIntervalSinceReferenceDate: 123_456.789_012)
            #expect(try roundTrip("due", date) as? Date == date)
            #expect(try roundTrip("attachment", Data([1, 2, 3])) as? Data == Data([1, 2, 3]))
            let title = try #require(item.attributesByName["title"])
            #expect(SyncRecordMapping.fieldValue(nil, of: title) == .null)
            #expect(SyncRecordMapping.attributeValue(.null, of: title) is NSNull)
            // A field of another kind (another client's model) is left alone.
            #expect(SyncRecordMapping.attributeValue(.int(3), of: title) == nil)
        }

        @Test func linkNamesAreTheSameFromEitherEndAndDifferPerLink() {
            let todo = SyncRecordMapping.LinkEnd(entity: "Todo", recordName: "CD_Todo_1", relationship: "tags")
            let tag = SyncRecordMapping.LinkEnd(entity: "Tag", recordName: "CD_Tag_1", relationship: "todos")
            let otherTag = SyncRecordMapping.LinkEnd(entity: "Tag", recordName: "CD_Tag_2", relationship: "todos")
            let name = SyncRecordMapping.linkRecordName(todo, tag)
            #expect(name == SyncRecordMapping.linkRecordName(tag, todo))
            #expect(name.hasPrefix("CDMR_") && name.count == 5 + 64)
            #expect(name != SyncRecordMapping.linkRecordName(todo, otherTag))
            let fields = SyncRecordMapping.linkFields(todo, tag)
            #expect(fields == SyncRecordMapping.linkFields(tag, todo))
            let ends = SyncRecordMapping.linkEnds(of: fields)
            #expect(ends.map { Set([$0.0, $0.1]) } == Set([todo, tag]))
        }

        @Test func serverErrorsMapToCloudKitCodes() {
            let gone = SyncServerError.from(
                status: 410, answer: .init(code: .resyncRequired, message: "old"), path: "/changes", retryAfter: nil)
            #expect(gone.domain == "CKErrorDomain" && gone.code == 21)
            #expect(SyncServerError.isResyncRequired(gone))
            let gap = SyncServerError.from(
                status: 409, answer: .init(code: .outOfOrder, message: "gap", lastBatchSequence: 7), path: "/push",
                retryAfter: nil)
            #expect(SyncServerError.lastAppliedBatch(gap) == 7)
            let limited = SyncServerError.from(status: 429, answer: nil, path: "/push", retryAfter: 3)
            #expect(limited.code == 7)
            #expect(SyncEngine.retryDelay(after: limited, current: 1) == 3)
            #expect(SyncServerError.from(status: 401, answer: nil, path: "/", retryAfter: nil).code == 9)
        }
    }
}

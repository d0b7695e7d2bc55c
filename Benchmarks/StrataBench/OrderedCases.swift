import Foundation
import Strata

/// B11o's playlist: one ordered to-many relationship that every track is inserted into.
final class Playlist: NSManagedObject {
    @Managed var name: String?
    @Managed var tracks: NSOrderedSet?

    /// As Strata's plugin (and `strata port --fix`) writes Xcode's generated accessor.
    func insertIntoTracks(_ value: Track, at idx: Int) {
        orderedToManyEditor(forKey: "tracks").insert(value, at: idx)
    }
}

/// One of B11o's tracks; `rank` is the order it was inserted in.
final class Track: NSManagedObject {
    @Managed var rank: Int64
    @Managed var playlist: Playlist?
}

/// B11o and B11os: `count` tracks inserted one by one at pseudo-random positions of one
/// playlist's ordered `tracks`, then one save. Raw SQLite writes the same rows with their final
/// order keys, found in O(n log n) from the same positions; each stack's store is read back in
/// order into its checksum after the clock.
enum OrderedCases {
    static let model = NSManagedObjectModel {
        Entity("Playlist", className: "Playlist") {
            Attribute("name", .stringAttributeType)
            Relationship("tracks", to: "Track", inverse: "playlist", toMany: true, ordered: true)
        }
        Entity("Track", className: "Track") {
            Attribute("rank", .integer64AttributeType, optional: false, defaultValue: Int64(0))
            Relationship("playlist", to: "Playlist", inverse: "tracks")
        }
    }

    static func timed(_ sizes: Sizes) -> [TimedCase] {
        let n = Report.count
        return [
            TimedCase(
                id: "B11o", work: "\(n(sizes.tagged)) inserts at random positions, ordered", goal: .ratio(3),
                objects: sizes.tagged, runs: runs(count: sizes.tagged)),
            TimedCase(
                id: "B11os", work: "B11o per insert: \(n(sizes.tagged / 10)) → \(n(sizes.tagged))",
                goal: .perObjectGrowth(1.3), objects: sizes.tagged / 10, runs: runs(count: sizes.tagged / 10)),
        ]
    }

    private static func runs(count: Int) -> [Stack: (Fixtures) throws -> Sample] {
        [.raw: { try raw($0, count: count) }, .strata: { try strata($0, count: count) }]
    }

    /// Where track `n` (1-based) goes among the `n - 1` inserted before it.
    static func position(of n: Int) -> Int {
        var z = UInt64(n) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 31)) &* 0xBF58_476D_1CE4_E5B9
        return Int((z ^ (z >> 29)) % UInt64(n))
    }

    /// An empty store of the model, made once per run beside the other fixtures.
    private static func emptyStore(_ fixtures: Fixtures) throws -> String {
        let path = fixtures.path("ordered")
        if !FileManager.default.fileExists(atPath: path) {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let store = try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: path))
            try coordinator.remove(store)
        }
        return path
    }

    private static func strata(_ fixtures: Fixtures, count: Int) throws -> Sample {
        let path = try fixtures.scratchCopy(of: emptyStore(fixtures))
        defer { Fixtures.remove(path) }
        var sample = try {
            let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
            let store = try coordinator.addPersistentStore(
                ofType: NSSQLiteStoreType, configurationName: nil, at: URL(fileURLWithPath: path))
            defer { try? coordinator.remove(store) }
            let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
            context.persistentStoreCoordinator = coordinator
            defer { context.performAndWait { context.reset() } }
            return try measure {
                try context.performAndWait {
                    let playlist = Playlist(context: context)
                    playlist.name = "Playlist"
                    for n in 1...count {
                        let track = Track(context: context)
                        track.rank = Int64(n)
                        playlist.insertIntoTracks(track, at: position(of: n))
                    }
                    try context.save()
                    return count
                }
            }
        }()
        sample.checksum &+= try written(in: path)
        return sample
    }

    private static func raw(_ fixtures: Fixtures, count: Int) throws -> Sample {
        let path = try fixtures.scratchCopy(of: emptyStore(fixtures))
        defer { Fixtures.remove(path) }
        var sample = try {
            let database = try RawDatabase(path: path)
            var entities: [String: Int64] = [:]
            let numbers = try database.prepare("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY")
            while try numbers.step() { entities[numbers.string(1) ?? ""] = numbers.int64(0) }
            let (playlistEntity, trackEntity) = (entities["Playlist"] ?? 0, entities["Track"] ?? 0)
            return try measure {
                let slots = finalPositions(count: count)
                try database.execute("BEGIN IMMEDIATE")
                try database.execute(
                    "INSERT INTO ZPLAYLIST (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, \(playlistEntity), 1, 'Playlist')")
                let insert = try database.prepare(
                    "INSERT INTO ZTRACK (Z_PK, Z_ENT, Z_OPT, ZRANK, ZPLAYLIST, Z_FOK_PLAYLIST) VALUES (?, ?, 1, ?, 1, ?)")
                for n in 1...count {
                    insert.bind(Int64(n), at: 1)
                    insert.bind(trackEntity, at: 2)
                    insert.bind(Int64(n), at: 3)
                    insert.bind(Int64(slots[n - 1] + 2) * 1024, at: 4)
                    try insert.step()
                    insert.reset()
                }
                try database.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_ENT = \(playlistEntity)")
                try database.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = \(count) WHERE Z_ENT = \(trackEntity)")
                try database.execute("COMMIT")
                return count
            }
        }()
        sample.checksum &+= try written(in: path)
        return sample
    }

    /// The final position of each track, the inserts replayed backwards: the last track takes
    /// the free slot its position names, and each earlier one the free slot its position
    /// names among those left (a Fenwick tree of free slots finds it in O(log n)).
    static func finalPositions(count: Int) -> [Int] {
        var tree = [Int](repeating: 0, count: count + 1)
        for slot in 1...count {
            tree[slot] += 1
            let parent = slot + (slot & -slot)
            if parent <= count { tree[parent] += tree[slot] }
        }
        var top = 1
        while top * 2 <= count { top *= 2 }
        var result = [Int](repeating: 0, count: count)
        for n in stride(from: count, through: 1, by: -1) {
            // The (position + 1)-th free slot.
            var rest = position(of: n) + 1
            var slot = 0
            var step = top
            while step > 0 {
                if slot + step <= count && tree[slot + step] < rest {
                    slot += step
                    rest -= tree[slot]
                }
                step /= 2
            }
            slot += 1
            result[n - 1] = slot - 1
            var index = slot
            while index <= count {
                tree[index] -= 1
                index += index & -index
            }
        }
        return result
    }

    /// The tracks as the store orders them, as a number both stacks must agree on.
    private static func written(in path: String) throws -> Int {
        let database = try RawDatabase(path: path)
        let rows = try database.prepare("SELECT ZRANK FROM ZTRACK WHERE ZPLAYLIST = 1 ORDER BY Z_FOK_PLAYLIST")
        var checksum = 0
        var position = 0
        while try rows.step() {
            position += 1
            checksum &+= position &* Int(rows.int64(0))
        }
        return checksum
    }
}

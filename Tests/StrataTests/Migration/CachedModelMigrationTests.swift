import Foundation
import GRDB
import Testing

@testable import Strata

/// A store whose model version the app no longer ships migrates from the model the store
/// caches (`Z_MODELCACHE`), as on Apple's systems; the migrated store caches its new model.
struct CachedModelMigrationTests {
    /// Version 1 (with a hash modifier no other model of the process has) and version 2, which
    /// adds an attribute with a default and renames `title` to `name`.
    static let marker = UUID().uuidString
    static var version1: String {
        """
        <entity name="Note" versionHashModifier="\(marker)">
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="rank" optional="YES" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
        </entity>
        """
    }
    static var version2: String {
        """
        <entity name="Note" versionHashModifier="\(marker)">
            <attribute name="name" optional="YES" attributeType="String" elementID="title"/>
            <attribute name="rank" optional="YES" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
            <attribute name="pinned" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES"/>
        </entity>
        """
    }

    @Test func aStoreMigratesFromItsCachedModelWhenTheAppNoLongerShipsIt() throws {
        // Only version 2 is shipped: a bundle without version 1.
        let shipped = try MigrationFixtures.bundle(["V2": Self.version2], current: "V2")
        defer { try? FileManager.default.removeItem(at: shipped.deletingLastPathComponent()) }
        let url = MigrationFixtures.store(in: shipped)
        let hashesOfVersion1: [String: Data]
        do {
            let written = try XcodeModelFixtures.load(MigrationFixtures.xml(Self.version1))
            hashesOfVersion1 = written.entityVersionHashesByName
            let (coordinator, context) = try MigrationFixtures.open(written, url, options: nil)
            try context.performAndWait {
                for (title, rank) in [("alpha", 1), ("beta", 2)] {
                    _ = MigrationFixtures.insert("Note", ["title": title, "rank": Int32(rank)], into: context)
                }
                try context.save()
            }
            try MigrationFixtures.close(coordinator)
        }
        // Nothing in the process holds version 1 any more: the store's cache is the only source.
        #expect(!KnownModels.all().contains { $0.entityVersionHashesByName == hashesOfVersion1 })

        let destination = try MigrationFixtures.model(shipped, "V2")
        let (coordinator, context) = try MigrationFixtures.open(destination, url)
        let rows = try context.performAndWait {
            try MigrationFixtures.fetch("Note", in: context, sortedBy: "rank").map { note in
                let name = note.value(forKey: "name") as? String ?? "nil"
                let rank = (note.value(forKey: "rank") as? NSNumber)?.intValue ?? -1
                let pinned = (note.value(forKey: "pinned") as? NSNumber)?.boolValue
                return "\(name) \(rank) \(pinned.map(String.init) ?? "nil")"
            }
        }
        #expect(rows == ["alpha 1 true", "beta 2 true"])
        try MigrationFixtures.close(coordinator)
        // The store now caches version 2.
        let cached = try NSManagedObjectModel.cachedModel(ofStoreAt: url)
        #expect(cached.entityVersionHashesByName == destination.entityVersionHashesByName)
    }
}

import Foundation
import Strata
import StrataCodegen
import Testing

/// Relationships get Xcode's types and, when to-many, Xcode's generated accessors.
@Suite("Relationships in generated classes")
struct RelationshipGenerationTests {
    private static let entities = """
        <entity name="Album" representedClassName="Album" syncable="YES" codeGenerationType="class">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="artist" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Artist" inverseName="albums" inverseEntity="Artist"/>
            <relationship name="tracks" optional="YES" toMany="YES" deletionRule="Cascade" ordered="YES" destinationEntity="Track" inverseName="album" inverseEntity="Track"/>
        </entity>
        <entity name="Artist" representedClassName="Artist" syncable="YES" codeGenerationType="class">
            <relationship name="albums" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Album" inverseName="artist" inverseEntity="Album"/>
        </entity>
        <entity name="Track" representedClassName="Track" syncable="YES" codeGenerationType="class">
            <relationship name="album" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Album" inverseName="tracks" inverseEntity="Album"/>
        </entity>
        """

    @Test("to-one is the destination class, to-many NSSet?, ordered NSOrderedSet?")
    func propertyTypes() throws {
        let source = try CodegenTesting.generate(Self.entities)
        #expect(
            CodegenTesting.managedProperties(in: source) == [
                "@Managed public var title: String?",
                "@Managed public var artist: Artist?",
                "@Managed public var tracks: NSOrderedSet?",
                "@Managed public var albums: NSSet?",
                "@Managed public var album: Album?",
            ]
        )
    }

    @Test("an unordered to-many relationship gets the four add/remove accessors")
    func unorderedAccessors() throws {
        let source = try CodegenTesting.generate(Self.entities)
        let expected = """
            // MARK: Generated accessors for albums
            extension Artist {
                public func addToAlbums(_ value: Album) {
                    mutableSetValue(forKey: "albums").add(value)
                }

                public func removeFromAlbums(_ value: Album) {
                    mutableSetValue(forKey: "albums").remove(value)
                }

                public func addToAlbums(_ values: NSSet) {
                    mutableSetValue(forKey: "albums").addObjects(from: values.allObjects)
                }

                public func removeFromAlbums(_ values: NSSet) {
                    mutableSetValue(forKey: "albums").minus(Set(values.allObjects.compactMap { $0 as? AnyHashable }))
                }
            }

            """
        #expect(source.contains(expected))
    }

    @Test("an ordered to-many relationship gets Xcode's ten accessors, in Xcode's order")
    func orderedAccessors() throws {
        let source = try CodegenTesting.generate(Self.entities)
        let expected = """
            // MARK: Generated accessors for tracks
            extension Album {
                public func insertIntoTracks(_ value: Track, at idx: Int) {
                    orderedToManyEditor(forKey: "tracks").insert(value, at: idx)
                }

                public func removeFromTracks(at idx: Int) {
                    orderedToManyEditor(forKey: "tracks").removeObject(at: idx)
                }

                public func insertIntoTracks(_ values: [Track], at indexes: NSIndexSet) {
                    let objects = orderedToManyEditor(forKey: "tracks")
                    for (value, index) in zip(values, indexes) {
                        objects.insert(value, at: index)
                    }
                }

                public func removeFromTracks(at indexes: NSIndexSet) {
                    let objects = orderedToManyEditor(forKey: "tracks")
                    for index in indexes.reversed() {
                        objects.removeObject(at: index)
                    }
                }

                public func replaceTracks(at idx: Int, with value: Track) {
                    orderedToManyEditor(forKey: "tracks").replaceObject(at: idx, with: value)
                }

                public func replaceTracks(at indexes: NSIndexSet, with values: [Track]) {
                    let objects = orderedToManyEditor(forKey: "tracks")
                    for (index, value) in zip(indexes, values) {
                        objects.replaceObject(at: index, with: value)
                    }
                }

                public func addToTracks(_ value: Track) {
                    orderedToManyEditor(forKey: "tracks").add(value)
                }

                public func removeFromTracks(_ value: Track) {
                    orderedToManyEditor(forKey: "tracks").remove(value)
                }

                public func addToTracks(_ values: NSOrderedSet) {
                    let objects = orderedToManyEditor(forKey: "tracks")
                    for value in values.array {
                        objects.add(value)
                    }
                }

                public func removeFromTracks(_ values: NSOrderedSet) {
                    let objects = orderedToManyEditor(forKey: "tracks")
                    for value in values.array {
                        objects.remove(value)
                    }
                }
            }

            """
        #expect(source.contains(expected))
    }

    @Test("to-one relationships get no accessors")
    func noAccessorsForToOne() throws {
        let source = try CodegenTesting.generate(Self.entities)
        #expect(!source.contains("Generated accessors for artist"))
        #expect(!source.contains("Generated accessors for album\n"))
        #expect(source.components(separatedBy: "// MARK: Generated accessors").count == 3)
    }

    @Test("a destination without a class of its own is typed NSManagedObject")
    func destinationWithoutClass() throws {
        let source = try CodegenTesting.generate(
            """
            <entity name="Owner" representedClassName="Owner" syncable="YES" codeGenerationType="class">
                <relationship name="pets" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Pet"/>
                <relationship name="favourite" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Pet"/>
            </entity>
            <entity name="Pet" syncable="YES"/>
            """
        )
        #expect(source.contains("@Managed public var favourite: NSManagedObject?"))
        #expect(source.contains("public func addToPets(_ value: NSManagedObject) {"))
        #expect(!source.contains("extension Pet"))
    }
}

import Foundation
import Testing

@testable import Strata

extension ObjectGraphTests {
    /// Inverse relationships are maintained in memory the moment either side changes, before
    /// any save or `processPendingChanges()`.
    @Suite struct InverseRelationshipTests {
        /// Runs `body` in a private-queue context of a coordinator with an in-memory store.
        private func inContext(_ body: (NSManagedObjectContext) throws -> Void) throws {
            let context = try Stack(libraryModel(), type: NSInMemoryStoreType, at: nil).newContext()
            try context.performAndWait { try body(context) }
        }

        @Test func settingAToOneMovesTheObjectBetweenTheInverseToManys() throws {
            try inContext { context in
                let herbert = Author(context: context)
                let dick = Author(context: context)
                let novel = Novel(context: context)
                novel.author = herbert
                #expect(herbert.novels == [novel])
                novel.author = dick
                #expect(herbert.novels.isEmpty)
                #expect(dick.novels == [novel])
                novel.author = nil
                #expect(dick.novels.isEmpty)
            }
        }

        @Test func settingAToOneThroughKeyValueCodingMaintainsTheInverse() throws {
            try inContext { context in
                let herbert = Author(context: context)
                let dick = Author(context: context)
                let novel = Novel(context: context)
                novel.setValue(herbert, forKey: "author")
                #expect((herbert.value(forKey: "novels") as? NSSet)?.contains(novel) == true)
                novel.setValue(dick, forKey: "author")
                #expect((herbert.value(forKey: "novels") as? NSSet)?.count == 0)
                #expect((dick.value(forKey: "novels") as? NSSet)?.contains(novel) == true)
            }
        }

        @Test func addingToAToManySetsTheInverseToOne() throws {
            try inContext { context in
                let herbert = Author(context: context)
                let dune = Novel(context: context)
                let messiah = Novel(context: context)
                let novels = herbert.mutableSetValue(forKey: "novels")
                novels.add(dune)
                #expect(dune.author === herbert)
                #expect(messiah.author == nil)
                novels.add(messiah)
                #expect(messiah.author === herbert)
                novels.remove(dune)
                #expect(dune.author == nil)
                #expect(messiah.author === herbert)
                #expect(herbert.novels == [messiah])
            }
        }

        @Test func addingToAnotherToManyTakesTheObjectFromItsFormerOwner() throws {
            try inContext { context in
                let herbert = Author(context: context)
                let dick = Author(context: context)
                let novel = Novel(context: context)
                herbert.mutableSetValue(forKey: "novels").add(novel)
                dick.mutableSetValue(forKey: "novels").add(novel)
                #expect(novel.author === dick)
                #expect(herbert.novels.isEmpty)
                #expect(dick.novels == [novel])
            }
        }

        @Test func replacingAWholeToManyUpdatesEveryInverse() throws {
            try inContext { context in
                let herbert = Author(context: context)
                let dune = Novel(context: context)
                let messiah = Novel(context: context)
                let children = Novel(context: context)
                herbert.setValue(NSSet(array: [dune, messiah]), forKey: "novels")
                #expect(dune.author === herbert && messiah.author === herbert)
                herbert.setValue(NSSet(array: [messiah, children]), forKey: "novels")
                #expect(dune.author == nil)
                #expect(messiah.author === herbert)
                #expect(children.author === herbert)
                herbert.mutableSetValue(forKey: "novels").removeAllObjects()
                #expect(messiah.author == nil && children.author == nil)
            }
        }

        @Test func orderedToManyAndItsInverseFollowEachOther() throws {
            try inContext { context in
                let dune = Novel(context: context)
                let ubik = Novel(context: context)
                let first = Chapter(context: context)
                let second = Chapter(context: context)
                let chapters = dune.mutableOrderedSetValue(forKey: "chapters")
                chapters.add(second)
                chapters.insert(first, at: 0)
                #expect(first.novel === dune && second.novel === dune)
                #expect(dune.chapters == [first, second])
                first.novel = ubik
                #expect(dune.chapters == [second])
                #expect(ubik.chapters == [first])
                chapters.remove(second)
                #expect(second.novel == nil)
                #expect(dune.chapters.isEmpty)
            }
        }

        @Test func oneToOneStealClearsTheFormerPartnersBackPointer() throws {
            try inContext { context in
                let ann = Employee(context: context)
                let bob = Employee(context: context)
                let window = Desk(context: context)
                let door = Desk(context: context)
                window.occupant = ann
                #expect(ann.desk === window)

                // The door desk takes Ann: her former desk loses its back-pointer.
                door.occupant = ann
                #expect(ann.desk === door)
                #expect(window.occupant == nil)

                // Bob takes the door desk from the other side: Ann is left without a desk.
                bob.desk = door
                #expect(door.occupant === bob)
                #expect(ann.desk == nil)
                #expect(window.occupant == nil)
            }
        }

        @Test func manyToManyIsMaintainedFromBothSides() throws {
            try inContext { context in
                let dune = Novel(context: context)
                let ubik = Novel(context: context)
                let scienceFiction = Genre(context: context)
                let satire = Genre(context: context)
                dune.mutableSetValue(forKey: "genres").add(scienceFiction)
                #expect(scienceFiction.novels == [dune])
                scienceFiction.mutableSetValue(forKey: "novels").add(ubik)
                #expect(ubik.genres == [scienceFiction])
                #expect(scienceFiction.novels == [dune, ubik])
                ubik.mutableSetValue(forKey: "genres").add(satire)
                #expect(satire.novels == [ubik])

                scienceFiction.mutableSetValue(forKey: "novels").remove(dune)
                #expect(dune.genres.isEmpty)
                ubik.mutableSetValue(forKey: "genres").remove(scienceFiction)
                #expect(scienceFiction.novels.isEmpty)
                #expect(ubik.genres == [satire])
            }
        }

        @Test func selfReferentialRelationshipsAreMaintainedFromBothSides() throws {
            try inContext { context in
                let ann = Person(context: context)
                let bob = Person(context: context)
                ann.mutableSetValue(forKey: "following").add(bob)
                #expect(bob.followers == [ann])
                #expect(ann.followers.isEmpty)
                bob.mutableSetValue(forKey: "followers").remove(ann)
                #expect(ann.following.isEmpty)

                let root = Folder(context: context)
                let documents = Folder(context: context)
                let archive = Folder(context: context)
                documents.parent = root
                #expect(root.children == [documents])
                archive.mutableSetValue(forKey: "children").add(documents)
                #expect(documents.parent === archive)
                #expect(root.children.isEmpty)
            }
        }
    }
}

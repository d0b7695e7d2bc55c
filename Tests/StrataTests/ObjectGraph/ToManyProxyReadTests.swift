import Foundation
import Testing

@testable import Strata

extension ObjectGraphTests {
    /// What an app reads through the live sets of `mutableOrderedSetValue(forKey:)` and
    /// `mutableSetValue(forKey:)`: every reading method of `NSOrderedSet` and `NSSet`, not only
    /// the primitives, gives the relationship's members, as on Apple's systems.
    ///
    /// Foundation on Linux reads `array`, `set`, `firstObject`, `lastObject` and iteration
    /// from the storage of `NSOrderedSet` itself, which those methods do not let a subclass
    /// replace (they are not `open`): the ordered view keeps that storage equal to the
    /// relationship, through changes made by the view, by the inverse, by another view and by
    /// the generated accessors' editor, and through the relationship set whole.
    @Suite struct ToManyProxyReadTests {
        @Test func theOrderedProxyReadsItsMembersEveryWay() throws {
            let stack = try Stack(libraryModel(), type: NSInMemoryStoreType, at: nil)
            let context = stack.newContext()
            try context.performAndWait {
                let novel = Novel(context: context)
                let chapters = novel.mutableOrderedSetValue(forKey: "chapters")
                var made: [Chapter] = []
                for number in 0..<3 {
                    let chapter = Chapter(context: context)
                    chapter.number = Int32(number)
                    made.append(chapter)
                }
                chapters.add(made[2])
                chapters.insert(made[0], at: 0)
                chapters.insert(made[1], at: 1)
                let view: NSOrderedSet = chapters
                // Through the primitives: right.
                #expect(view.count == 3)
                #expect((0..<view.count).compactMap { (view.object(at: $0) as? Chapter)?.number } == [0, 1, 2])
                #expect(view.index(of: made[1]) == 1)
                #expect(view.objects(at: IndexSet(0...2)).compactMap { ($0 as? Chapter)?.number } == [0, 1, 2])
                #expect(view.isEqual(NSOrderedSet(array: made)))
                // Through the open methods the view answers itself.
                #expect(view.contains(made[1]))
                #expect((view.copy() as? NSOrderedSet)?.array.compactMap { ($0 as? Chapter)?.number } == [0, 1, 2])
                #expect((view.mutableCopy() as? NSMutableOrderedSet)?.count == 3)
                var enumerated: [Int32] = []
                view.enumerateObjects { object, _, _ in enumerated.append((object as? Chapter)?.number ?? -1) }
                #expect(enumerated == [0, 1, 2])
                #expect(view.index(ofObjectPassingTest: { object, _, _ in (object as? Chapter)?.number == 2 }) == 2)
                let later = view.indexes(ofObjectsPassingTest: { object, _, _ in ((object as? Chapter)?.number ?? 0) > 0 })
                #expect(later == IndexSet(1...2))
                let descending = view.sortedArray { a, b in
                    ((a as? Chapter)?.number ?? 0) > ((b as? Chapter)?.number ?? 0) ? .orderedAscending : .orderedDescending
                }
                #expect(descending.compactMap { ($0 as? Chapter)?.number } == [2, 1, 0])
                #expect(view.intersects(NSOrderedSet(array: [made[2]])))
                #expect(view.isSubset(of: NSOrderedSet(array: made + [Chapter(context: context)])))
                #expect(view.intersectsSet(Set([AnyHashable(made[0])])))
                #expect(Self.everyRead(of: view) == [0, 1, 2])
                // A change made elsewhere (through the inverse) shows in the proxy too.
                made[1].novel = nil
                #expect(view.count == 2 && view.index(of: made[1]) == NSNotFound)
                #expect((0..<view.count).compactMap { (view.object(at: $0) as? Chapter)?.number } == [0, 2])
                #expect(!view.contains(made[1]))
                #expect(Self.everyRead(of: view) == [0, 2])
            }
        }

        /// The numbers of the chapters `view` holds, read through each of Foundation's readers
        /// that a subclass cannot answer: the numbers when all of them agree, or what each gave
        /// (separated by -9) when they differ.
        static func everyRead(of view: NSOrderedSet) -> [Int32] {
            func numbers(_ objects: [Any]) -> [Int32] { objects.map { ($0 as? Chapter)?.number ?? -1 } }
            let array = numbers(view.array)
            var iterated: [Any] = []
            for object in view { iterated.append(object) }
            let reads: [[Int32]] = [
                array, numbers(iterated), numbers(view.objectEnumerator().allObjects),
                numbers(view.reverseObjectEnumerator().allObjects.reversed()),
                numbers(view.firstObject.map { [$0] } ?? []), numbers(view.lastObject.map { [$0] } ?? []),
                numbers(Array(view.set)).sorted(),
            ]
            let expected = [array, array, array, array, Array(array.prefix(1)), Array(array.suffix(1)), array.sorted()]
            return reads == expected ? array : reads.flatMap { $0 + [-9] }
        }

        /// Every way the relationship changes while the app holds its view: the view's reads that
        /// Foundation answers from its own storage follow each one.
        @Test func theOrderedProxyFollowsEveryChangeOfItsRelationship() throws {
            let stack = try Stack(libraryModel(), type: NSInMemoryStoreType, at: nil)
            let context = stack.newContext()
            try context.performAndWait {
                let novel = Novel(context: context)
                let view: NSMutableOrderedSet = novel.mutableOrderedSetValue(forKey: "chapters")
                let chapters = (0..<6).map { number -> Chapter in
                    let chapter = Chapter(context: context)
                    chapter.number = Int32(number)
                    return chapter
                }
                // The inverse, then the generated accessors' editor, then the view itself.
                chapters[0].novel = novel
                chapters[1].novel = novel
                #expect(Self.everyRead(of: view) == [0, 1])
                let editor = novel.orderedToManyEditor(forKey: "chapters")
                editor.insert(chapters[2], at: 0)
                editor.replaceObject(at: 1, with: chapters[3])
                #expect(Self.everyRead(of: view) == [2, 3, 1])
                view.insert(chapters[4], at: 1)
                view.removeObject(at: 3)
                #expect(Self.everyRead(of: view) == [2, 4, 3])
                // Another view of the same relationship (not the context's kept one).
                let other = OrderedToManyRelationshipSet(object: novel, key: "chapters")
                other.exchangeObject(at: 0, withObjectAt: 2)
                #expect(Self.everyRead(of: other) == [3, 4, 2])
                #expect(Self.everyRead(of: view) == [3, 4, 2])
                // The relationship set whole, through the accessor and through the view.
                novel.chapters = [chapters[5], chapters[0]]
                #expect(Self.everyRead(of: view) == [5, 0])
                view.removeAllObjects()
                #expect(Self.everyRead(of: view) == [])
                view.addObjects(from: [chapters[1], chapters[2]])
                #expect(Self.everyRead(of: view) == [1, 2])
                // Asking again gives the kept set, which holds the relationship as it is now.
                #expect(novel.mutableOrderedSetValue(forKey: "chapters") === view)
                #expect(novel.chapters.map(\.number) == [1, 2])
            }
        }

        /// Foundation's mutators that change `NSOrderedSet`'s own storage, not through the
        /// primitives (`addObjects(from:)`, `exchangeObject`, the sorts, `intersect`), change the
        /// relationship through the view: saved, the file holds the new order. Before they changed
        /// only the view's storage, and nothing was saved.
        @Test func foundationsOwnMutatorsChangeTheRelationshipAndAreSaved() throws {
            let scratch = ScratchDirectory()
            let url = scratch.file("mutators.sqlite")
            func numbers(_ objects: [Any]) -> [Int32] { objects.map { ($0 as? Chapter)?.number ?? -1 } }
            let ascending: (Any, Any) -> ComparisonResult = { a, b in
                let (x, y) = (((a as? Chapter)?.number ?? 0), ((b as? Chapter)?.number ?? 0))
                return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
            }
            try ObjectGraphTests.saveAndReopen(
                libraryModel(), at: url,
                write: { context in
                    let novel = Novel(context: context)
                    novel.title = "Mutators"
                    let chapters = (0..<6).map { number -> Chapter in
                        let chapter = Chapter(context: context)
                        chapter.number = Int32(number)
                        return chapter
                    }
                    let view = novel.mutableOrderedSetValue(forKey: "chapters")
                    view.addObjects(from: [chapters[0], chapters[1], chapters[2], chapters[3], chapters[4]])
                    #expect(novel.chapters.map(\.number) == [0, 1, 2, 3, 4])
                    view.sort { a, b in ascending(b, a) }
                    #expect(novel.chapters.map(\.number) == [4, 3, 2, 1, 0])
                    view.sortRange(NSRange(location: 1, length: 3), options: [], usingComparator: ascending)
                    #expect(novel.chapters.map(\.number) == [4, 1, 2, 3, 0])
                    view.exchangeObject(at: 0, withObjectAt: 4)
                    #expect(novel.chapters.map(\.number) == [0, 1, 2, 3, 4])
                    view.intersect(NSOrderedSet(array: [chapters[4], chapters[3], chapters[1], chapters[0], chapters[5]]))
                    #expect(novel.chapters.map(\.number) == [0, 1, 3, 4])
                    view.sort(options: [.stable], usingComparator: { a, b in ascending(b, a) })
                    #expect(novel.chapters.map(\.number) == [4, 3, 1, 0])
                    #expect(Self.everyRead(of: view) == [4, 3, 1, 0])
                    // The option and index-set forms of the readers.
                    var visited: [Int32] = []
                    view.enumerateObjects(at: IndexSet([0, 2]), options: []) { object, _, _ in
                        visited.append((object as? Chapter)?.number ?? -1)
                    }
                    #expect(visited == [4, 1])
                    let zero = view.index(ofObjectAt: IndexSet(1...3), options: []) { o, _, _ in numbers([o]) == [0] }
                    #expect(zero == 3)
                    let belowFour = view.indexes(options: [], ofObjectsPassingTest: { o, _, _ in numbers([o])[0] < 4 })
                    #expect(belowFour == IndexSet(1...3))
                    #expect(
                        view.indexes(ofObjectsAt: IndexSet([0, 1]), options: [], passingTest: { _, _, _ in true })
                            == IndexSet([0, 1]))
                    #expect(numbers(view.sortedArray(options: [], usingComparator: ascending)) == [0, 1, 3, 4])
                    #expect(view.isSubset(of: Set(chapters.map { AnyHashable($0) })))
                    #expect(!view.isSubset(of: Set([AnyHashable(chapters[0])])))
                },
                read: { context in
                    let request = NSFetchRequest<Novel>(entityName: "Novel")
                    let novel = try #require(try context.fetch(request).first)
                    #expect(novel.chapters.map(\.number) == [4, 3, 1, 0])
                })
        }

        /// A context's kept views: asking again does not copy the relationship again; a
        /// rolled-back relationship is copied into the view by the rollback.
        @Test func keptOrderedViewsCopyTheirRelationshipOnce() throws {
            let stack = try Stack(libraryModel(), type: NSInMemoryStoreType, at: nil)
            let context = stack.newContext()
            try context.performAndWait {
                let novel = Novel(context: context)
                for number in 0..<50 {
                    let chapter = Chapter(context: context)
                    chapter.number = Int32(number)
                    chapter.novel = novel
                }
                try context.save()
                let first = novel.mutableOrderedSetValue(forKey: "chapters")
                let before = context.relationshipElementCopies
                for _ in 0..<20 {
                    #expect(novel.mutableOrderedSetValue(forKey: "chapters") === first)
                }
                #expect(context.relationshipElementCopies == before)
                first.removeObject(at: 0)
                #expect(Self.everyRead(of: first) == Array(1..<50))
                context.rollback()
                // Read first through what Foundation answers from its own storage (no `count`).
                #expect((first.firstObject as? Chapter)?.number == 0)
                #expect(first.count == 50)
                #expect(Self.everyRead(of: first) == Array(0..<50))
                context.reset()
                #expect(context.orderedViews.isEmpty)
            }
        }

        /// Rollback, refresh (both ways), undo, a merge of another context's save and a merge
        /// policy put a relationship back without `setValue`: a view the app holds across each
        /// reads the relationship as it is after it, first through the readers Foundation answers
        /// from its own storage. A view of an object refreshed into a fault leaves it a fault.
        @Test func aHeldViewFollowsTheRelationshipPutBackWhole() throws {
            let stack = try Stack(libraryModel(), type: NSInMemoryStoreType, at: nil)
            let context = stack.newContext()
            try context.performAndWait {
                context.undoManager = UndoManager()
                let novel = Novel(context: context)
                let chapters = (0..<6).map { number -> Chapter in
                    let chapter = Chapter(context: context)
                    chapter.number = Int32(number)
                    return chapter
                }
                novel.chapters = Array(chapters[0..<3])
                try context.save()
                let view = novel.mutableOrderedSetValue(forKey: "chapters")
                func firstAndLast() -> [Int32] {
                    [view.firstObject, view.lastObject].map { ($0 as? Chapter)?.number ?? -1 }
                }
                // Rollback.
                view.removeObject(at: 0)
                view.add(chapters[3])
                #expect(firstAndLast() == [1, 3])
                context.rollback()
                #expect(firstAndLast() == [0, 2])
                #expect(Self.everyRead(of: view) == [0, 1, 2])
                // Undo of a change made through the accessor, in its own undo group.
                context.processPendingChanges()
                context.undoManager?.beginUndoGrouping()
                novel.chapters = [chapters[4], chapters[5]]
                context.undoManager?.endUndoGrouping()
                #expect(firstAndLast() == [4, 5])
                context.undoManager?.undo()
                #expect(firstAndLast() == [0, 2])
                #expect(Self.everyRead(of: view) == [0, 1, 2])
                context.rollback()
                // Refresh keeping the change: the view reads the change.
                view.removeObject(at: 2)
                context.refresh(novel, mergeChanges: true)
                #expect(Self.everyRead(of: view) == [0, 1])
                // Refresh, discarding it: the object stays a fault and the view reads the store's.
                context.refresh(novel, mergeChanges: false)
                #expect(novel.isFault)
                #expect(firstAndLast() == [0, 2])
                #expect(novel.isFault)
                #expect(view.count == 3)
                #expect(!novel.isFault)
                // Once fired, a change made through the inverse reaches the view again.
                chapters[4].novel = novel
                #expect(firstAndLast() == [0, 4])
                context.rollback()

                // Another context saves a new order; merging its save puts it back here.
                let other = stack.newContext()
                try other.performAndWait {
                    let theirs = try other.existingObject(with: novel.objectID)
                    theirs.mutableOrderedSetValue(forKey: "chapters").exchangeObject(at: 0, withObjectAt: 2)
                    try other.save()
                }
                context.mergeChanges(
                    fromContextDidSave: Notification(
                        name: .NSManagedObjectContextDidSave, object: other,
                        userInfo: [NSUpdatedObjectsKey: Set([novel.objectID])]))
                #expect(firstAndLast() == [2, 0])
                #expect(Self.everyRead(of: view) == [2, 1, 0])

                // A conflict resolved by a merge policy: the store's relationship wins.
                try other.performAndWait {
                    try other.existingObject(with: novel.objectID).mutableOrderedSetValue(forKey: "chapters")
                        .removeObject(at: 0)
                    try other.save()
                }
                view.add(chapters[5])
                #expect(firstAndLast() == [2, 5])
                context.mergePolicy = NSRollbackMergePolicy
                try context.save()
                #expect(firstAndLast() == [1, 0])
                #expect(Self.everyRead(of: view) == [1, 0])
            }
        }

        @Test func theUnorderedProxyReadsItsMembersEveryWay() throws {
            let stack = try Stack(libraryModel(), type: NSInMemoryStoreType, at: nil)
            let context = stack.newContext()
            try context.performAndWait {
                let author = Author(context: context)
                let novels = author.mutableSetValue(forKey: "novels")
                var made: [Novel] = []
                for year in 0..<3 {
                    let novel = Novel(context: context)
                    novel.year = Int16(year)
                    made.append(novel)
                    novels.add(novel)
                }
                let view: NSSet = novels
                #expect(view.count == 3)
                #expect(Set(view.allObjects.compactMap { ($0 as? Novel)?.year }) == [0, 1, 2])
                #expect(view.contains(made[1]))
                var iterated: Set<Int16> = []
                for case let novel as Novel in view { iterated.insert(novel.year) }
                #expect(iterated == [0, 1, 2])
                #expect(view.isEqual(to: Set(made.map { AnyHashable($0) })))
                made[1].author = nil
                #expect(view.count == 2 && !view.contains(made[1]))
                #expect(Set(view.allObjects.compactMap { ($0 as? Novel)?.year }) == [0, 2])
            }
        }
    }
}

import Foundation
import Testing

@testable import Strata

extension ObjectGraphTests {
    /// Fetch requests in their basic form against a SQLite store: sort descriptors, limit and
    /// offset, subentities, and object-ID and count results.
    @Suite struct FetchingTests {
        private let scratch = ScratchDirectory()
        private let stack: Stack

        /// (title, year, rating) of the saved novels.
        private static let novels: [(String, Int16, Double)] = [
            ("Dune", 1965, 4.5), ("Alpha", 1965, 3.0), ("Ubik", 1969, 4.0), ("Beta", 1969, 4.5),
            ("Omega", 1969, 4.0), ("Gamma", 1980, 4.0), ("Zed", 1990, 2.0),
        ]

        /// Saves the novels and a small animal hierarchy to a new SQLite store.
        init() throws {
            stack = try Stack(libraryModel(), at: scratch.file("library.sqlite"))
            let context = stack.newContext()
            try context.performAndWait {
                for (title, year, rating) in Self.novels {
                    let novel = Novel(context: context)
                    novel.title = title
                    novel.year = year
                    novel.rating = rating
                }
                let generic = Animal(context: context)
                generic.name = "Generic"
                for name in ["Rex", "Fido"] {
                    let dog = Dog(context: context)
                    dog.name = name
                    dog.breed = "Collie"
                }
                let cat = Cat(context: context)
                cat.name = "Tom"
                cat.indoor = true
                try context.save()
            }
        }

        /// Runs `body` in a new context, so that fetches are answered by the store.
        private func inNewContext<Result>(_ body: (NSManagedObjectContext) throws -> Result) throws -> Result {
            let context = stack.newContext()
            return try context.performAndWait { try body(context) }
        }

        /// A novel request ordered by year (newest first), then title.
        private func byYearThenTitle() -> NSFetchRequest<Novel> {
            let request = NSFetchRequest<Novel>(entityName: "Novel")
            request.sortDescriptors = [
                NSSortDescriptor(key: "year", ascending: false), NSSortDescriptor(key: "title", ascending: true),
            ]
            return request
        }

        @Test func compoundsOfNothingFetchEverythingForAndNothingForOr() throws {
            try inNewContext { context in
                let request = NSFetchRequest<Novel>(entityName: "Novel")
                request.predicate = NSCompoundPredicate(type: .and, subpredicates: [])
                let all = try context.count(for: request)
                #expect(all == Self.novels.count)
                request.predicate = NSCompoundPredicate(type: .or, subpredicates: [])
                let none = try context.count(for: request)
                #expect(none == 0)
                request.predicate = NSCompoundPredicate(andPredicateWithSubpredicates: [
                    NSPredicate(format: "year == 1969"),
                    NSCompoundPredicate(notPredicateWithSubpredicate: NSPredicate(format: "rating < 4.2")),
                ])
                let titles = try context.fetch(request).map(\.title)
                #expect(titles == ["Beta"])
            }
        }

        @Test func aSingleSortDescriptorOrdersTheResults() throws {
            try inNewContext { context in
                let request = NSFetchRequest<Novel>(entityName: "Novel")
                request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
                let ascending = try context.fetch(request).map(\.title)
                #expect(ascending == ["Alpha", "Beta", "Dune", "Gamma", "Omega", "Ubik", "Zed"])
                request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: false)]
                let descending = try context.fetch(request).map(\.title)
                #expect(descending == ["Zed", "Ubik", "Omega", "Gamma", "Dune", "Beta", "Alpha"])
            }
        }

        @Test func laterSortDescriptorsBreakTies() throws {
            try inNewContext { context in
                let byYear = try context.fetch(byYearThenTitle()).map(\.title)
                #expect(byYear == ["Zed", "Gamma", "Beta", "Omega", "Ubik", "Alpha", "Dune"])

                let request = NSFetchRequest<Novel>(entityName: "Novel")
                request.sortDescriptors = [
                    NSSortDescriptor(key: "rating", ascending: false), NSSortDescriptor(key: "year", ascending: true),
                    NSSortDescriptor(key: "title", ascending: false),
                ]
                let byRating = try context.fetch(request).map(\.title)
                #expect(byRating == ["Dune", "Beta", "Ubik", "Omega", "Gamma", "Alpha", "Zed"])
            }
        }

        @Test func fetchLimitKeepsTheFirstResults() throws {
            try inNewContext { context in
                let request = byYearThenTitle()
                request.fetchLimit = 3
                let limited = try context.fetch(request).map(\.title)
                #expect(limited == ["Zed", "Gamma", "Beta"])
                request.fetchLimit = 100
                let all = try context.fetch(request)
                #expect(all.count == 7)
            }
        }

        @Test func fetchOffsetSkipsTheFirstResults() throws {
            try inNewContext { context in
                let request = byYearThenTitle()
                request.fetchOffset = 2
                request.fetchLimit = 3
                let page = try context.fetch(request).map(\.title)
                #expect(page == ["Beta", "Omega", "Ubik"])
                request.fetchLimit = 0
                request.fetchOffset = 5
                let rest = try context.fetch(request).map(\.title)
                #expect(rest == ["Alpha", "Dune"])
                request.fetchOffset = 10
                let beyond = try context.fetch(request)
                #expect(beyond.isEmpty)
            }
        }

        @Test func subentitiesAreIncludedByDefault() throws {
            try inNewContext { context in
                let request = NSFetchRequest<Animal>(entityName: "Animal")
                request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
                #expect(request.includesSubentities)
                let animals = try context.fetch(request)
                #expect(animals.map(\.name) == ["Fido", "Generic", "Rex", "Tom"])
                #expect(animals.map { $0.entity.name } == ["Dog", "Animal", "Dog", "Cat"])
                #expect(animals[0] is Dog && animals[2] is Dog && animals[3] is Cat)
                #expect(!(animals[1] is Dog) && !(animals[1] is Cat))
                #expect((animals[0] as? Dog)?.breed == "Collie")
                #expect((animals[3] as? Cat)?.indoor == true)
                #expect(try context.count(for: request) == 4)
            }
        }

        @Test func excludingSubentitiesFetchesOnlyTheEntitysOwnObjects() throws {
            try inNewContext { context in
                let request = NSFetchRequest<Animal>(entityName: "Animal")
                request.includesSubentities = false
                let names = try context.fetch(request).map(\.name)
                #expect(names == ["Generic"])
                let count = try context.count(for: request)
                #expect(count == 1)
            }
        }

        @Test func aSubentityFetchesOnlyItsObjects() throws {
            try inNewContext { context in
                let request = NSFetchRequest<Dog>(entityName: "Dog")
                request.sortDescriptors = [NSSortDescriptor(key: "name", ascending: false)]
                let dogs = try context.fetch(request)
                #expect(dogs.map(\.name) == ["Rex", "Fido"])
                #expect(try context.count(for: NSFetchRequest<Cat>(entityName: "Cat")) == 1)
            }
        }

        @Test func objectIDResultsAreTheIDsOfTheObjects() throws {
            try inNewContext { context in
                let request = NSFetchRequest<NSManagedObjectID>(entityName: "Novel")
                request.resultType = .managedObjectIDResultType
                request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
                let ids = try context.fetch(request)
                #expect(ids.count == 7)
                #expect(ids.allSatisfy { !$0.isTemporaryID && $0.entity.name == "Novel" })
                #expect(context.registeredObjects.isEmpty)

                let objects = try context.fetch(byYearThenTitle()).sorted { ($0.title ?? "") < ($1.title ?? "") }
                #expect(ids == objects.map(\.objectID))
            }
        }

        @Test func countResultsAreOneNumber() throws {
            try inNewContext { context in
                let request = NSFetchRequest<NSNumber>(entityName: "Novel")
                request.resultType = .countResultType
                let result = try context.fetch(request)
                #expect(result.map(\.intValue) == [7])
                #expect(try context.count(for: NSFetchRequest<Novel>(entityName: "Novel")) == 7)
            }
        }

        @Test func fetchesAndCountsIncludeUnsavedChanges() throws {
            try inNewContext { context in
                let request = NSFetchRequest<Novel>(entityName: "Novel")
                request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
                let zed = try #require(try context.fetch(request).last)
                #expect(zed.title == "Zed")
                context.delete(zed)
                let added = Novel(context: context)
                added.title = "Aardvark"
                #expect(try context.count(for: request) == 7)
                let titles = try context.fetch(request).map(\.title)
                #expect(titles == ["Aardvark", "Alpha", "Beta", "Dune", "Gamma", "Omega", "Ubik"])
            }
        }

        @Test func fetchingTwiceReturnsTheSameInstances() throws {
            try inNewContext { context in
                let request = byYearThenTitle()
                let first = try context.fetch(request)
                let second = try context.fetch(request)
                #expect(first.count == 7)
                #expect(zip(first, second).allSatisfy { $0 === $1 })
                #expect(Set(context.registeredObjects.compactMap { $0 as? Novel }) == Set(first))
            }
        }
    }
}

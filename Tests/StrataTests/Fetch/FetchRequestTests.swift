import Foundation
import Testing

@testable import Strata

/// Each property of `NSFetchRequest`, run against the SQLite store (and, where the answer
/// is the store's, the in-memory store).
@Suite struct FetchRequestTests {
    @Test(arguments: [NSSQLiteStoreType, NSInMemoryStoreType])
    func predicatesFilterInTheStore(type: String) throws {
        let library = try FetchLibrary(type: type)
        defer { library.remove() }
        let byTitle = [NSSortDescriptor(key: "title", ascending: true)]
        #expect(
            try library.titles(NSPredicate(format: "title CONTAINS[cd] %@", "cafe"), sort: byTitle) == [
                "CAFE SOCIETY", "Café au lait",
            ])
        #expect(
            try library.titles(NSPredicate(format: "pages > %d AND genre == %@", 100, "novel"), sort: byTitle) == [
                "CAFE SOCIETY", "Dune", "Emma",
            ])
        #expect(
            try library.titles(NSPredicate(format: "writer.name == %@", "Capote"), sort: byTitle) == [
                "CAFE SOCIETY", "file10", "file9",
            ])
        #expect(try library.titles(NSPredicate(format: "ANY labels.name == %@", "space"), sort: byTitle) == ["Dune", "Ünïcödé"])
        #expect(try library.titles(NSPredicate(format: "labels.@count >= 2"), sort: byTitle) == ["CAFE SOCIETY", "Ünïcödé"])
        #expect(try library.titles(NSPredicate(format: "genre == nil"), sort: byTitle) == ["file10", "file9"])
        #expect(
            try library.titles(NSPredicate(format: "title IN %@", ["Emma", "Dune", "Nope"]), sort: byTitle) == ["Dune", "Emma"])
        #expect(try library.titles(NSPredicate(format: "title BEGINSWITH[cd] 'ΣΙΣΥΦ'")) == ["σίσυφος"])
        #expect(try library.titles(NSPredicate(format: "title ==[cd] %@", "unicode")) == ["Ünïcödé"])
    }

    @Test func sortDescriptorsFollowKeyPathsAndSelectors() throws {
        let library = try FetchLibrary()
        defer { library.remove() }
        let byWriterThenPages = [
            NSSortDescriptor(key: "writer.name", ascending: false), NSSortDescriptor(key: "pages", ascending: true),
        ]
        #expect(
            try library.titles(sort: byWriterThenPages)
                == ["Ünïcödé", "σίσυφος", "Dune", "file9", "file10", "CAFE SOCIETY", "Café au lait", "Emma"])
        let standard = [NSSortDescriptor(key: "title", ascending: true, selector: Selector("localizedStandardCompare:"))]
        let files = try library.titles(NSPredicate(format: "title BEGINSWITH 'file'"), sort: standard)
        #expect(files == ["file9", "file10"])
        let plain = try library.titles(
            NSPredicate(format: "title BEGINSWITH 'file'"), sort: [NSSortDescriptor(key: "title", ascending: true)])
        #expect(plain == ["file10", "file9"])
    }

    @Test func limitAndOffsetPage() throws {
        let library = try FetchLibrary()
        defer { library.remove() }
        let byPages = [NSSortDescriptor(key: "pages", ascending: true)]
        let page = try library.titles(sort: byPages) { request in
            request.fetchLimit = 3
            request.fetchOffset = 2
        }
        #expect(page == ["Ünïcödé", "σίσυφος", "Café au lait"])
    }

    @Test func batchedFetchesLoadRowsOneBatchAtATime() throws {
        let library = try FetchLibrary()
        defer { library.remove() }
        let context = library.newContext()
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Volume")
            request.sortDescriptors = [NSSortDescriptor(key: "pages", ascending: true)]
            request.fetchBatchSize = 3
            let volumes = try context.fetch(request)
            #expect(volumes.count == 8)
            #expect(volumes.allSatisfy { $0.isFault && $0.pendingSnapshot == nil })
            #expect(volumes[4].value(forKey: "title") as? String == "Café au lait")
            // Reading one object loaded its batch (positions 3…5) and nothing else.
            #expect(volumes[3].pendingSnapshot != nil && volumes[5].pendingSnapshot != nil)
            #expect(volumes[2].pendingSnapshot == nil && volumes[6].pendingSnapshot == nil)
            #expect(volumes.map { $0.value(forKey: "pages") as? Int32 ?? -1 } == [9, 10, 50, 80, 120, 300, 450, 600])
        }
    }

    @Test func resultTypesGiveIDsCountsAndDictionaries() throws {
        let library = try FetchLibrary()
        defer { library.remove() }
        let context = library.newContext()
        try context.performAndWait {
            let ids = NSFetchRequest<NSManagedObjectID>(entityName: "Volume")
            ids.resultType = .managedObjectIDResultType
            ids.predicate = NSPredicate(format: "genre == 'essay'")
            #expect(try context.fetch(ids).count == 3)

            let count = NSFetchRequest<NSNumber>(entityName: "Volume")
            count.resultType = .countResultType
            count.predicate = NSPredicate(format: "pages < 100")
            #expect(try context.fetch(count).first?.intValue == 4)
            #expect(try context.count(for: count) == 4)

            let rows = NSFetchRequest<NSDictionary>(entityName: "Volume")
            rows.resultType = .dictionaryResultType
            rows.propertiesToFetch = ["title", "writer.name"]
            rows.predicate = NSPredicate(format: "pages == 600")
            let row = try #require(try context.fetch(rows).first)
            #expect(row["title"] as? String == "Dune")
            #expect(row["writer.name"] as? String == "Herbert")
        }
    }

    @Test func dictionaryFetchesGroupAggregateAndFilterGroups() throws {
        let library = try FetchLibrary()
        defer { library.remove() }
        let context = library.newContext()
        try context.performAndWait {
            let total = NSExpressionDescription()
            total.name = "totalPages"
            total.expression = NSExpression(forFunction: "sum:", arguments: [NSExpression(forKeyPath: "pages")])
            total.expressionResultType = .integer64AttributeType
            let count = NSExpressionDescription()
            count.name = "books"
            count.expression = NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: "title")])
            count.expressionResultType = .integer64AttributeType
            let request = NSFetchRequest<NSDictionary>(entityName: "Volume")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["genre", total, count]
            request.propertiesToGroupBy = ["genre"]
            request.predicate = NSPredicate(format: "genre != nil")
            request.sortDescriptors = [NSSortDescriptor(key: "genre", ascending: true)]
            let groups = try context.fetch(request)
            #expect(groups.map { $0["genre"] as? String } == ["essay", "novel"])
            #expect(groups.map { ($0["totalPages"] as? NSNumber)?.intValue } == [250, 1350])
            #expect(groups.map { ($0["books"] as? NSNumber)?.intValue } == [3, 3])

            request.havingPredicate = NSPredicate(format: "totalPages > 1000")
            #expect(try context.fetch(request).map { $0["genre"] as? String } == ["novel"])
            // Apple's spelling names the aggregate as a variable: its expression description's name.
            request.havingPredicate = NSPredicate(format: "$totalPages > 1000")
            #expect(try context.fetch(request).map { $0["genre"] as? String } == ["novel"])
            request.havingPredicate = NSPredicate(format: "$totalPages < 1000 AND $books == 3")
            #expect(try context.fetch(request).map { $0["genre"] as? String } == ["essay"])

            let withIDs = NSFetchRequest<NSDictionary>(entityName: "Volume")
            withIDs.resultType = .dictionaryResultType
            withIDs.propertiesToFetch = ["objectID", "title"]
            withIDs.predicate = NSPredicate(format: "genre == 'essay'")
            let rows = try context.fetch(withIDs)
            #expect(rows.count == 3)
            for row in rows {
                let id = try #require(row["objectID"] as? NSManagedObjectID)
                #expect(try context.existingObject(with: id).value(forKey: "title") as? String == row["title"] as? String)
            }

            let distinct = NSFetchRequest<NSDictionary>(entityName: "Volume")
            distinct.resultType = .dictionaryResultType
            distinct.propertiesToFetch = ["genre"]
            distinct.returnsDistinctResults = true
            distinct.predicate = NSPredicate(format: "genre != nil")
            #expect(Set(try context.fetch(distinct).compactMap { $0["genre"] as? String }) == ["essay", "novel"])
            #expect(try context.fetch(distinct).count == 2)
        }
    }

    /// A having predicate names an aggregate by its expression description's name, as a
    /// variable (`$count`) or a key (`count`), even when the name is one that collections
    /// answer too; in each store type.
    @Test(arguments: [NSSQLiteStoreType, NSInMemoryStoreType, NSBinaryStoreType])
    func havingPredicatesNameAggregatesByTheirDescriptionsName(type: String) throws {
        let library = try FetchLibrary(type: type)
        defer { library.remove() }
        let context = library.newContext()
        try context.performAndWait {
            let count = NSExpressionDescription()
            count.name = "count"
            count.expression = NSExpression(forFunction: "count:", arguments: [NSExpression(forKeyPath: "title")])
            count.expressionResultType = .integer64AttributeType
            let longest = NSExpressionDescription()
            longest.name = "first"
            longest.expression = NSExpression(forFunction: "max:", arguments: [NSExpression(forKeyPath: "pages")])
            longest.expressionResultType = .integer32AttributeType
            let request = NSFetchRequest<NSDictionary>(entityName: "Volume")
            request.resultType = .dictionaryResultType
            request.propertiesToFetch = ["genre", count, longest]
            request.propertiesToGroupBy = ["genre"]
            request.sortDescriptors = [NSSortDescriptor(key: "genre", ascending: true)]
            func genres() throws -> [String] { try context.fetch(request).map { $0["genre"] as? String ?? "nil" } }
            let groups = try context.fetch(request)
            #expect(groups.map { $0["genre"] as? String ?? "nil" } == ["nil", "essay", "novel"])
            #expect(groups.map { ($0["count"] as? NSNumber)?.intValue } == [2, 3, 3])
            request.havingPredicate = NSPredicate(format: "$count > 2")
            #expect(try genres() == ["essay", "novel"])
            request.havingPredicate = NSPredicate(format: "$count == 2")
            #expect(try genres() == ["nil"])
            request.havingPredicate = NSPredicate(format: "count < 3")
            #expect(try genres() == ["nil"])
            request.havingPredicate = NSPredicate(format: "$count == 3 AND $first > 500")
            #expect(try genres() == ["novel"])
            request.havingPredicate = NSPredicate(format: "#first < 200")
            #expect(try genres() == ["nil", "essay"])
            // A having predicate built in code, over groups of a key path through a to-one, with
            // the grouped property given as its description.
            request.havingPredicate = NSComparisonPredicate(
                leftExpression: NSExpression(forVariable: "count"), rightExpression: NSExpression(forConstantValue: 2),
                modifier: .direct, type: .greaterThan)
            #expect(try genres() == ["essay", "novel"])
            let genre = try #require(
                context.persistentStoreCoordinator?.managedObjectModel.entitiesByName["Volume"]?
                    .attributesByName["genre"])
            request.propertiesToFetch = [genre, count]
            request.propertiesToGroupBy = [genre]
            request.havingPredicate = NSPredicate(format: "$count >= 3 AND genre != 'essay'")
            #expect(try genres() == ["novel"])
            request.propertiesToFetch = ["writer.name", count]
            request.propertiesToGroupBy = ["writer.name"]
            request.sortDescriptors = [NSSortDescriptor(key: "writer.name", ascending: true)]
            request.havingPredicate = NSPredicate(format: "$count == 3")
            let writers = try context.fetch(request).map { $0["writer.name"] as? String }
            #expect(writers == ["Capote", "Herbert"])
        }
    }

    @Test func pendingChangesChangeTheAnswer() throws {
        let library = try FetchLibrary()
        defer { library.remove() }
        let context = library.newContext()
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Volume")
            request.predicate = NSPredicate(format: "genre == 'essay'")
            request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            let essays = try context.fetch(request)
            #expect(essays.count == 3)

            let fresh = NSEntityDescription.insertNewObject(forEntityName: "Volume", into: context)
            fresh.setValue("Aardvark essays", forKey: "title")
            fresh.setValue("essay", forKey: "genre")
            essays[0].setValue("novel", forKey: "genre")  // Café au lait leaves the answer
            context.delete(essays[1])  // Ünïcödé is deleted
            let dune = try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Volume")).first {
                $0.value(forKey: "title") as? String == "Dune"
            }
            dune?.setValue("essay", forKey: "genre")  // Dune joins it
            let titles = try context.fetch(request).map { $0.value(forKey: "title") as? String }
            #expect(titles == ["Aardvark essays", "Dune", "σίσυφος"])
            #expect(try context.count(for: request) == 3)

            request.includesPendingChanges = false
            #expect(try context.fetch(request).count == 3)
            #expect(try context.fetch(request).contains { $0 === essays[1] })
        }
    }

    @Test func faultsAndPrefetching() throws {
        let library = try FetchLibrary()
        defer { library.remove() }
        let context = library.newContext()
        try context.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Writer")
            request.returnsObjectsAsFaults = false
            request.relationshipKeyPathsForPrefetching = ["books", "books.labels"]
            let writers = try context.fetch(request)
            #expect(writers.allSatisfy { !$0.isFault })
            for writer in writers {
                let index = try #require(writer.layout.indexByName["books"])
                #expect(writer.values[index] is [NSManagedObject], "books were prefetched")
                for case let book as NSManagedObject in (writer.value(forKey: "books") as? NSSet) ?? [] {
                    #expect(book.pendingSnapshot != nil || !book.isFault, "book rows were prefetched")
                }
            }
            let faults = NSFetchRequest<NSManagedObject>(entityName: "Writer")
            faults.includesPropertyValues = false
            let bare = try context.fetch(faults)
            #expect(bare.count == 3)
        }
    }

    /// A to-many without inverse is stored in a hidden column of the destination's table, and
    /// its prefetch reads the rows of every owner ordered by key: rows of different owners
    /// interleave, and each owner still gets all of its own.
    @Test func prefetchingAToManyWithoutInverseKeepsEveryOwnersRows() throws {
        let model = NSManagedObjectModel {
            Entity("Crate") {
                Attribute("label", .stringAttributeType)
                Relationship("contents", to: "Parcel", toMany: true)
            }
            Entity("Parcel") { Attribute("name", .stringAttributeType) }
        }
        let store = try ScratchStore(model: model)
        defer { store.remove() }
        let writer = store.newContext()
        try writer.performAndWait {
            let crates = ["a", "b"].map { label in
                let crate = NSEntityDescription.insertNewObject(forEntityName: "Crate", into: writer)
                crate.setValue(label, forKey: "label")
                return crate
            }
            // Parcels made in turn for each crate: their keys alternate between the owners.
            for number in 1...6 {
                let parcel = NSEntityDescription.insertNewObject(forEntityName: "Parcel", into: writer)
                parcel.setValue("p\(number)", forKey: "name")
                crates[number % 2 == 1 ? 0 : 1].mutableSetValue(forKey: "contents").add(parcel)
            }
            try writer.save()
        }
        let reader = store.newContext()
        try reader.performAndWait {
            let request = NSFetchRequest<NSManagedObject>(entityName: "Crate")
            request.relationshipKeyPathsForPrefetching = ["contents"]
            var contents: [String: Set<String>] = [:]
            for crate in try reader.fetch(request) {
                let parcels = (crate.value(forKey: "contents") as? NSSet)?.allObjects as? [NSManagedObject] ?? []
                contents[crate.value(forKey: "label") as? String ?? "?"] = Set(
                    parcels.compactMap { $0.value(forKey: "name") as? String })
            }
            #expect(contents == ["a": ["p1", "p3", "p5"], "b": ["p2", "p4", "p6"]])
        }
    }

    @Test func templatesFromTheModelTakeVariables() throws {
        let library = try FetchLibrary()
        defer { library.remove() }
        let model = library.coordinator.managedObjectModel
        let template = NSFetchRequest<NSFetchRequestResult>(entityName: "Volume")
        template.predicate = NSPredicate(format: "pages >= $MIN AND genre == $GENRE")
        model.setFetchRequestTemplate(template, forName: "longOnes")
        let request = try #require(
            model.fetchRequestFromTemplate(withName: "longOnes", substitutionVariables: ["MIN": 400, "GENRE": "novel"]))
        #expect(request.predicate?.predicateFormat == "pages >= 400 AND genre == \"novel\"")
        let context = library.newContext()
        let count = try context.performAndWait { try context.count(for: request) }
        #expect(count == 2)
        // A template fetched without its variables is an error, not a crash.
        #expect(throws: NSError.self) { try context.performAndWait { try context.count(for: template) } }
    }

    @Test func injectionThroughArgumentsAndKeyPathsIsHarmless() throws {
        let library = try FetchLibrary()
        defer { library.remove() }
        #expect(try library.titles(NSPredicate(format: "title == %@", "x' OR 1=1 --")).isEmpty)
        #expect(throws: NSError.self) { try library.titles(NSPredicate(format: "%K == 1", "title; DROP TABLE ZVOLUME")) }
        #expect(try library.titles().count == 8, "the table is still there")
        // A malformed format reaches the fetch as its syntax error (DEVIATIONS.md: Apple's raises
        // at `NSPredicate(format:)`), naming where the parser stopped and what it wanted.
        let fetchError = try #require(throws: PredicateSyntaxError.self) {
            try library.titles(NSPredicate(format: "title =="))
        }
        #expect(fetchError.offset == 8 && fetchError.expected == "an expression" && fetchError.found.isEmpty)
        let syntaxError = try #require(throws: PredicateSyntaxError.self) {
            try NSPredicate.parse(format: "title == 'unterminated")
        }
        #expect(syntaxError.offset == 9)
        #expect(syntaxError.description.contains("offset 9"))
    }

    /// A comparison SQL cannot run is named in the error, with its key path and operator (the
    /// text is made only when the error is thrown).
    @Test func aComparisonThatCannotRunIsNamedInTheError() throws {
        let library = try FetchLibrary()
        defer { library.remove() }
        let context = library.newContext()
        try context.performAndWait {
            let writer = try #require(try context.fetch(NSFetchRequest<NSManagedObject>(entityName: "Writer")).first)
            let request = NSFetchRequest<NSManagedObject>(entityName: "Volume")
            request.predicate = NSPredicate(format: "writer > %@", writer)
            #expect {
                try context.fetch(request)
            } throws: { error in
                let text = (error as NSError).localizedDescription
                return text.contains("writer greaterThan value") && text.contains("objects compare only with ==, != and IN")
            }
        }
    }
}

import Foundation
import Testing

@testable import SwiftData

struct JournalCover: Codable, Equatable {
    var color: String
    var pages: Int
}

enum JournalMood: String, Codable {
    case calm, busy
}

@Model
final class Journal {
    @Attribute(.preserveValueOnDeletion) var title: String
    var body: String
    @Attribute(.preserveValueOnDeletion) var words: Int
    @Attribute(.preserveValueOnDeletion) var cover = JournalCover(color: "red", pages: 80)
    @Attribute(.preserveValueOnDeletion) var mood: JournalMood?

    init(title: String, body: String, words: Int = 0) {
        self.title = title
        self.body = body
        self.words = words
    }
}

@Suite("SwiftData history")
struct HistoryTests {
    @Test("transactions with their inserts, updates and tombstones; after a token; by author; deleted")
    func history() throws {
        let container = try ModelContainer(for: Journal.self, configurations: ModelConfiguration(url: try temporaryStoreURL()))
        let context = ModelContext(container)
        context.author = "importer"
        let first = Journal(title: "A", body: "one")
        let second = Journal(title: "B", body: "two", words: 2)
        second.cover = JournalCover(color: "green", pages: 120)
        second.mood = .busy
        context.insert(first)
        context.insert(second)
        try context.save()
        context.author = "editor"
        first.body = "one, edited"
        try context.save()
        let deleted = second.persistentModelID
        context.delete(second)
        try context.save()

        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(all.map(\.author) == ["importer", "editor", "editor"])
        #expect(all.map(\.changes.count) == [2, 1, 1])
        guard all.count == 3 else { return }
        let inserted = all[0].changes.compactMap { change -> PersistentIdentifier? in
            if case .insert(let insert) = change { return insert.changedPersistentIdentifier }
            return nil
        }
        #expect(Set(inserted) == [first.persistentModelID, deleted])
        guard case .update(let update) = all[1].changes.first,
            let journalUpdate = update as? DefaultHistoryUpdate<Journal>
        else {
            Issue.record("the second transaction is not an update of a Journal: \(all[1].changes)")
            return
        }
        #expect(journalUpdate.changedPersistentIdentifier == first.persistentModelID)
        #expect(journalUpdate.updatedAttributes == [\Journal.body])
        guard case .delete(let delete) = all[2].changes.first, let journalDelete = delete as? DefaultHistoryDelete<Journal>
        else {
            Issue.record("the third transaction is not a deletion of a Journal: \(all[2].changes)")
            return
        }
        #expect(journalDelete.changedPersistentIdentifier == deleted)
        #expect(journalDelete.tombstone[\.title] == "B", "a preserved value survives the deletion")
        #expect(journalDelete.tombstone[\.body] == nil, "others do not")
        // Values kept in another form than the property's type come back in its type.
        #expect(journalDelete.tombstone[\.words] == 2)
        #expect(journalDelete.tombstone[\.cover] == JournalCover(color: "green", pages: 120), "a struct, from its composite")
        #expect(journalDelete.tombstone[\.mood] == .some(.busy), "an enumeration, from its raw value")
        #expect(all[0].token < all[1].token && all[1].token < all[2].token)

        let token = all[0].token
        let later = try context.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token }))
        #expect(later.map(\.transactionIdentifier) == [all[1].transactionIdentifier, all[2].transactionIdentifier])
        let byImporter = try context.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == "importer" }))
        #expect(byImporter.count == 1)
        let encoded = try JSONEncoder().encode(token)
        #expect(try JSONDecoder().decode(DefaultHistoryToken.self, from: encoded) == token)

        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= token }))
        let left = try ModelContext(container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(left.map(\.transactionIdentifier) == [all[1].transactionIdentifier, all[2].transactionIdentifier])
    }

    @Test("a predicate bounding the token from below reads only later transactions; others read all")
    func tokenBounds() throws {
        let container = try ModelContainer(for: Journal.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for title in ["A", "B", "C"] {
            context.insert(Journal(title: title, body: ""))
            try context.save()
        }
        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(all.count == 3)
        let first = all[0].token
        let second = all[1].token
        func bound(_ predicate: Predicate<DefaultHistoryTransaction>) -> DefaultHistoryToken? {
            HistoryTokenBound.lowerBound(of: predicate)
        }
        #expect(bound(#Predicate { $0.token > first }) == first)
        #expect(bound(#Predicate { first < $0.token }) == first)
        #expect(bound(#Predicate { $0.token > first && $0.author == nil }) == first)
        #expect(bound(#Predicate { $0.token > first && $0.token > second }) == second)
        #expect(bound(#Predicate { $0.token >= first }) == nil)
        #expect(bound(#Predicate { $0.token > first || $0.author == nil }) == nil)
        #expect(bound(#Predicate { $0.token < second }) == nil)
        // The results are those of the predicate, bound or not.
        let later = try context.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > first && $0.author == nil }))
        #expect(later.map(\.transactionIdentifier) == all.dropFirst().map(\.transactionIdentifier))
        let either = try context.fetchHistory(
            HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > second || $0.token < first }))
        #expect(either.map(\.transactionIdentifier) == [all[2].transactionIdentifier])
    }
}

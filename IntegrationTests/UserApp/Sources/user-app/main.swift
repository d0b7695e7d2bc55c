import CloudKit
import CoreData
import SwiftData
import UserKit
import UserNotes

// A program as a user of Strata writes it, run by scripts/test-user-package: every check
// prints what it found, and the program exits non-zero at the first difference.

var failures = 0

/// A model subclass of a library's open model class.
@Model
final class Reminder: Note {
    var due: Date

    init(text: String, due: Date) {
        self.due = due
        super.init(text: text)
    }
}

@MainActor
func check(_ condition: Bool, _ what: String) {
    print("\(condition ? "ok" : "FAILED"): \(what)")
    if !condition { failures += 1 }
}

// The model comes from Users.xcdatamodeld, which the plugin compiled beside the executable; its
// classes are generated (codegen "Class Definition"). Nothing has touched `User` or `Post` yet
// in this process: the first call must still make objects of those classes.
let container = NSPersistentContainer(name: "Users")
container.persistentStoreDescriptions.first?.url = URL(fileURLWithPath: "/dev/null")
var loadError: (any Error)?
container.loadPersistentStores { _, error in loadError = error }
check(loadError == nil, "the store loads (\(loadError.map { "\($0)" } ?? "no error"))")

let context = container.viewContext
let made = NSEntityDescription.insertNewObject(forEntityName: "User", into: context)
check(made is User, "insertNewObject(forEntityName: \"User\") makes a \(type(of: made)) on the class's first use")
let post = NSEntityDescription.insertNewObject(forEntityName: "Post", into: context)
check(post is Post, "insertNewObject(forEntityName: \"Post\") makes a \(type(of: post)) (\".Post\" in the model)")

if let user = made as? User, let post = post as? Post {
    user.name = "Ada"
    user.age = 36
    post.title = "Notes on the Analytical Engine"
    post.author = user
    let younger = User(context: context)
    younger.name = "Grace"
    younger.age = 12
    do {
        try context.save()
        let request = User.fetchRequest()
        request.predicate = Queries.both(Queries.older(than: 30), NSPredicate(format: "ANY posts.title BEGINSWITH %@", "Notes"))
        let found = try context.fetch(request)
        check(found.map(\.name) == ["Ada"], "a fetch with a predicate from the library finds \(found.map(\.name))")
        check(user.posts?.count == 1, "the inverse relationship holds the post")
    } catch {
        check(false, "save and fetch: \(error)")
    }
}

// `import CloudKit`: a container with no server configured refuses a query with CloudKit's error.
let query = CKQuery(recordType: "CD_User", predicate: NSPredicate(format: "CD_name == %@", "Ada"))
do {
    _ = try await CKContainer(identifier: "iCloud.org.example.users").privateCloudDatabase.perform(query, inZoneWith: nil)
    check(false, "a query without a server throws")
} catch let error as CKError {
    check(error.code == .badContainer, "a query without a server throws CKError.badContainer (\(error.code.rawValue))")
} catch {
    check(false, "a query without a server throws a CKError, not \(error)")
}

// `import SwiftData`: the library's @Model classes in a container of their own, written from a
// model actor and read from the main context.
do {
    let notes = try ModelContainer(for: Notebook.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    let count = try await NoteImporter(modelContainer: notes).add(["first", "second"], to: "Ideas")
    check(count == 2, "a model actor saves 2 notes (\(count))")
    let main = notes.mainContext
    let books = try main.fetch(FetchDescriptor<Notebook>())
    check(books.map(\.title) == ["Ideas"] && books.first?.notes.count == 2, "the main context reads the notebook and its notes")
    books.first?.notes.first { $0.text == "second" }?.pinned = true
    try main.save()
    check(try NoteQueries.pinned(in: ModelContext(notes)) == ["second"], "a #Predicate of the library finds the pinned note")
} catch {
    check(false, "SwiftData: \(error)")
}

// A subclass of the library's open model class, declared here (another module).
do {
    let notes = try ModelContainer(
        for: Notebook.self, Checklist.self, Reminder.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    let context = ModelContext(notes)
    let book = Notebook(title: "Week")
    book.notes = [
        Note(text: "plain"), Checklist(text: "shopping", items: ["bread", "tea"]),
        Reminder(text: "call", due: Date(timeIntervalSinceReferenceDate: 0)),
    ]
    context.insert(book)
    try context.save()
    let other = ModelContext(notes)
    let all = try other.fetch(FetchDescriptor<Note>(sortBy: [SortDescriptor(\.text)]))
    let kinds = all.map { "\($0.text):\(type(of: $0))" }
    check(
        kinds == ["call:Reminder", "plain:Note", "shopping:Checklist"], "fetching the base class returns each subclass (\(kinds))"
    )
    let reminders = try other.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0 is Reminder }))
    check(
        reminders.compactMap { ($0 as? Reminder)?.due } == [Date(timeIntervalSinceReferenceDate: 0)],
        "$0 is Reminder finds the reminder and its date")
    let lists = try other.fetch(FetchDescriptor<Checklist>())
    check(lists.map(\.items) == [["bread", "tea"]], "a library subclass keeps its own property")
    // The library's Codable struct: a composite attribute, read by a #Predicate written here.
    let spare = Notebook(title: "Spare")
    spare.cover = NotebookCover(color: "blue", pages: 48)
    other.insert(spare)
    try other.save()
    let blue = try ModelContext(notes).fetch(FetchDescriptor<Notebook>(predicate: #Predicate { $0.cover.color == "blue" }))
    check(
        blue.map(\.title) == ["Spare"] && blue.first?.cover == NotebookCover(color: "blue", pages: 48),
        "a library's Codable struct is stored and read by a #Predicate on its values")
    let week = try ModelContext(notes).fetch(FetchDescriptor<Notebook>(predicate: #Predicate { $0.title == "Week" }))
    check(week.first?.cover == NotebookCover(color: "grey", pages: 96), "a struct property's initial value is stored")
} catch {
    check(false, "SwiftData inheritance: \(error)")
}

print(failures == 0 ? "user-app: all checks passed" : "user-app: \(failures) checks failed")
exit(failures == 0 ? 0 : 1)

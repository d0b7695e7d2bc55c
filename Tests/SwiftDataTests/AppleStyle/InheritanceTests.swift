import CoreData
import Foundation
import SwiftData
import Testing

// Model class inheritance as Apple's "Adopting inheritance in SwiftData" writes it: a base
// model, subclasses that add properties and call `super.init`, a subclass of a subclass, a
// relationship whose models may be of any class of the hierarchy.

@Model
class Article {
    #Index<Article>([\.title])

    var title: String
    var published: Date
    @Relationship(deleteRule: .cascade, inverse: \ArticleComment.article)
    var comments: [ArticleComment] = []
    var magazine: Magazine?

    init(title: String, published: Date = .now) {
        self.title = title
        self.published = published
    }
}

@Model
class Tutorial: Article {
    var difficulty: Int
    var steps: [String] = []

    init(title: String, difficulty: Int, steps: [String] = []) {
        self.difficulty = difficulty
        self.steps = steps
        super.init(title: title)
    }
}

@Model
final class VideoTutorial: Tutorial {
    var minutes: Int = 0
    var host: String?

    init(title: String, difficulty: Int, minutes: Int, host: String? = nil) {
        self.minutes = minutes
        self.host = host
        super.init(title: title, difficulty: difficulty)
    }
}

@Model
class News: Article {
    enum Topic: String, Codable, CaseIterable {
        case science, sport, culture
    }

    var topic: Topic

    init(title: String, topic: Topic) {
        self.topic = topic
        super.init(title: title)
    }
}

/// A subclass that adds no property.
@Model
final class Interview: Article {
    init(interviewing name: String) {
        super.init(title: "Meeting \(name)")
    }
}

@Model
final class Magazine {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Article.magazine)
    var articles: [Article] = []
    /// A relationship to a subclass, without an inverse.
    @Relationship(deleteRule: .nullify) var featured: Tutorial?

    init(name: String) {
        self.name = name
    }
}

@Model
final class ArticleComment {
    var text: String
    var article: Article?

    init(text: String) {
        self.text = text
    }
}

@Suite("Model class inheritance")
struct InheritanceTests {
    /// What each saved article should read back as: its class and every value.
    struct Expected: Equatable {
        var kind: String
        var title: String
        var difficulty: Int?
        var steps: [String]?
        var minutes: Int?
        var host: String?
        var topic: News.Topic?
        var comments: [String]
    }

    static func describe(_ article: Article) -> Expected {
        var expected = Expected(
            kind: String(describing: type(of: article)), title: article.title,
            comments: article.comments.map(\.text).sorted())
        if let tutorial = article as? Tutorial {
            expected.difficulty = tutorial.difficulty
            expected.steps = tutorial.steps
        }
        if let video = article as? VideoTutorial {
            expected.minutes = video.minutes
            expected.host = video.host
        }
        if let news = article as? News { expected.topic = news.topic }
        return expected
    }

    static let oracle: [Expected] = [
        Expected(kind: "Article", title: "Editorial", comments: ["first"]),
        Expected(kind: "News", title: "Launch", topic: .science, comments: []),
        Expected(kind: "Tutorial", title: "Knots", difficulty: 2, steps: ["loop", "pull"], comments: ["tight", "useful"]),
        Expected(
            kind: "VideoTutorial", title: "Sourdough", difficulty: 4, steps: [], minutes: 42, host: "Ana", comments: []),
    ]

    /// A container with the hierarchy and a magazine of one article of each class, saved.
    static func savedMagazine(at url: URL) throws -> ModelContainer {
        let container = try ModelContainer(
            for: Magazine.self, Article.self, Tutorial.self, VideoTutorial.self, News.self,
            configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let magazine = Magazine(name: "Monthly")
        let editorial = Article(title: "Editorial")
        let launch = News(title: "Launch", topic: .science)
        let knots = Tutorial(title: "Knots", difficulty: 2, steps: ["loop", "pull"])
        let sourdough = VideoTutorial(title: "Sourdough", difficulty: 4, minutes: 42, host: "Ana")
        magazine.articles = [editorial, launch, knots, sourdough]
        context.insert(magazine)
        let comments = [("first", editorial), ("useful", knots), ("tight", knots)]
        for (text, article) in comments {
            let comment = ArticleComment(text: text)
            context.insert(comment)
            comment.article = article
        }
        try context.save()
        return container
    }

    @Test("the schema: each subclass's entity is a subentity with the properties it declares")
    func schema() throws {
        let schema = Schema([Magazine.self, Tutorial.self, VideoTutorial.self, News.self])
        let model = try #require(NSManagedObjectModel.makeManagedObjectModel(for: [VideoTutorial.self, News.self]))
        func names(_ properties: [NSPropertyDescription]) -> Set<String> { Set(properties.map { $0.name }) }
        do {
            let entities = model.entitiesByName
            // Article is reached as the subclasses' superclass, though not named; Magazine
            // through Article's relationship.
            let article = try #require(entities["Article"])
            let tutorial = try #require(entities["Tutorial"])
            let video = try #require(entities["VideoTutorial"])
            let news = try #require(entities["News"])
            #expect(article.superentity == nil)
            #expect(Set(article.subentities.compactMap { $0.name }) == ["Tutorial", "News"])
            #expect(entities["Magazine"] != nil)
            #expect(tutorial.superentity === article)
            #expect(video.superentity === tutorial)
            #expect(news.superentity === article)
            #expect(names(article.declaredProperties) == ["title", "published", "comments", "magazine"])
            #expect(names(tutorial.declaredProperties) == ["difficulty", "steps"])
            #expect(names(video.declaredProperties) == ["minutes", "host"])
            #expect(names(news.declaredProperties) == ["topic"])
            #expect(
                Set(video.propertiesByName.keys) == [
                    "title", "published", "comments", "magazine", "difficulty", "steps", "minutes", "host",
                ])
            #expect(article.relationshipsByName["magazine"]?.inverseRelationship?.name == "articles")
            #expect(article.relationshipsByName["comments"]?.inverseRelationship?.name == "article")
        }
        let entities = schema.entitiesByName
        #expect(entities["Tutorial"]?.superentity === entities["Article"])
        #expect(entities["Article"]?.subentities.map { $0.name }.sorted() == ["News", "Tutorial"])
        #expect(entities["Tutorial"]?.attributes.map { $0.name }.sorted() == ["difficulty", "steps"])
        // A subclass's schema names its inherited properties by its own key paths.
        #expect(
            VideoTutorial.schemaMetadata.map(\.name) == [
                "title", "published", "comments", "magazine", "difficulty", "steps", "minutes", "host",
            ])
        #expect(VideoTutorial.schemaMetadata[0].keypath == \VideoTutorial.title)
        #expect(Tutorial.schemaMetadata[4].keypath == \Tutorial.difficulty)
    }

    @Test("models of every class are saved and fetched back as their own classes, with every value")
    func roundTrip() throws {
        let url = try temporaryStoreURL()
        let container = try Self.savedMagazine(at: url)
        // A new container: nothing is read from memory.
        let reopened = try ModelContainer(
            for: Magazine.self, Article.self, Tutorial.self, VideoTutorial.self, News.self,
            configurations: ModelConfiguration(url: url))
        _ = container
        let context = ModelContext(reopened)
        let articles = try context.fetch(FetchDescriptor<Article>(sortBy: [SortDescriptor(\.title)]))
        #expect(articles.map(Self.describe) == Self.oracle.sorted { $0.title < $1.title })
        let magazine = try #require(try context.fetch(FetchDescriptor<Magazine>()).first)
        #expect(Set(magazine.articles.map { ObjectIdentifier($0) }) == Set(articles.map { ObjectIdentifier($0) }))
        #expect(try context.fetchCount(FetchDescriptor<Article>()) == 4)
        #expect(try context.fetchCount(FetchDescriptor<Tutorial>()) == 2)
        #expect(try context.fetchCount(FetchDescriptor<VideoTutorial>()) == 1)
        #expect(try context.fetchCount(FetchDescriptor<News>()) == 1)
        let tutorials = try context.fetch(FetchDescriptor<Tutorial>(sortBy: [SortDescriptor(\.title)]))
        #expect(tutorials.map(\.title) == ["Knots", "Sourdough"])
        #expect(tutorials.last is VideoTutorial)
        // The models of one row are one model, whichever class fetched it.
        #expect(tutorials.allSatisfy { tutorial in articles.contains { $0 === tutorial } })
        #expect(tutorials.first?.persistentModelID.entityName == "Tutorial")
        #expect(articles.first { $0.title == "Sourdough" }?.persistentModelID.entityName == "VideoTutorial")
    }

    @Test("predicates and sorts on inherited and own properties of a subclass")
    func predicatesAndSorts() throws {
        let container = try Self.savedMagazine(at: try temporaryStoreURL())
        let context = ModelContext(container)
        let hard = try context.fetch(FetchDescriptor<Tutorial>(predicate: #Predicate { $0.difficulty > 3 }))
        #expect(hard.map(\.title) == ["Sourdough"])
        let named = try context.fetch(
            FetchDescriptor<VideoTutorial>(predicate: #Predicate { $0.title == "Sourdough" && $0.minutes == 42 }))
        #expect(named.count == 1)
        let byDifficulty = try context.fetch(
            FetchDescriptor<Tutorial>(sortBy: [SortDescriptor(\Tutorial.difficulty, order: .reverse)]))
        #expect(byDifficulty.map(\.title) == ["Sourdough", "Knots"])
        let science = News.Topic.science
        let news = try context.fetch(FetchDescriptor<News>(predicate: #Predicate { $0.topic == science }))
        #expect(news.map(\.title) == ["Launch"])
        let commented = try context.fetch(
            FetchDescriptor<Article>(predicate: #Predicate { !$0.comments.isEmpty }, sortBy: [SortDescriptor(\.title)]))
        #expect(commented.map(\.title) == ["Editorial", "Knots"])
    }

    @Test("is and as? in predicates test a model's class")
    func typePredicates() throws {
        let container = try Self.savedMagazine(at: try temporaryStoreURL())
        let context = ModelContext(container)
        func titles(_ predicate: Predicate<Article>) throws -> [String] {
            try context.fetch(FetchDescriptor<Article>(predicate: predicate, sortBy: [SortDescriptor(\.title)])).map(\.title)
        }
        #expect(try titles(#Predicate { $0 is Tutorial }) == ["Knots", "Sourdough"])
        #expect(try titles(#Predicate { $0 is VideoTutorial }) == ["Sourdough"])
        #expect(try titles(#Predicate { !($0 is Tutorial) }) == ["Editorial", "Launch"])
        #expect(try titles(#Predicate { $0 is News || $0.title == "Editorial" }) == ["Editorial", "Launch"])
        // `as?` reads a subclass's property, nil on the others' models; a test through it also
        // tests the class (every article's title is non-empty).
        #expect(try titles(#Predicate { ($0 as? Tutorial)?.difficulty == 4 }) == ["Sourdough"])
        #expect(try titles(#Predicate { (($0 as? Tutorial)?.difficulty ?? 0) >= 2 }) == ["Knots", "Sourdough"])
        #expect(try titles(#Predicate { ($0 as? Tutorial)?.difficulty != 2 }) == ["Editorial", "Launch", "Sourdough"])
        #expect(try titles(#Predicate { ($0 as? VideoTutorial)?.host != nil }) == ["Sourdough"])
        #expect(try titles(#Predicate { ($0 as? News)?.title.isEmpty == false }) == ["Launch"])
        #expect(try titles(#Predicate { ($0 as? News)?.title.isEmpty != false }) == ["Editorial", "Knots", "Sourdough"])
        #expect(
            try titles(
                #Predicate {
                    if let tutorial = $0 as? Tutorial {
                        tutorial.difficulty > 3
                    } else {
                        $0.title == "Launch"
                    }
                }) == ["Launch", "Sourdough"])
        // Unsaved changes too (the predicate evaluated in memory).
        context.insert(Tutorial(title: "Aardvarks", difficulty: 1))
        var descriptor = FetchDescriptor<Article>(predicate: #Predicate { $0 is Tutorial }, sortBy: [SortDescriptor(\.title)])
        descriptor.includePendingChanges = true
        #expect(try context.fetch(descriptor).map(\.title) == ["Aardvarks", "Knots", "Sourdough"])
    }

    @Test("changes to inherited and own properties after insertion are saved; deleting the base cascades")
    func changesAndDeletion() throws {
        let url = try temporaryStoreURL()
        let container = try Self.savedMagazine(at: url)
        let context = ModelContext(container)
        let video = try #require(try context.fetch(FetchDescriptor<VideoTutorial>()).first)
        video.title = "Sourdough, again"
        video.difficulty = 5
        video.minutes = 50
        video.host = nil
        video.steps.append("bake")
        try context.save()
        let other = ModelContext(container)
        let read = try #require(
            try other.fetch(FetchDescriptor<Article>(predicate: #Predicate { $0.title == "Sourdough, again" })).first)
        #expect(
            Self.describe(read)
                == Expected(
                    kind: "VideoTutorial", title: "Sourdough, again", difficulty: 5, steps: ["bake"], minutes: 50, host: nil,
                    comments: []))
        let knots = try #require(try other.fetch(FetchDescriptor<Tutorial>(predicate: #Predicate { $0.title == "Knots" })).first)
        other.delete(knots)
        try other.save()
        #expect(try other.fetchCount(FetchDescriptor<ArticleComment>()) == 1)
        #expect(try other.fetchCount(FetchDescriptor<Article>()) == 3)
    }

    @Test("a subclass without properties of its own, and a relationship to a subclass")
    func emptySubclassAndRelationshipToSubclass() throws {
        let url = try temporaryStoreURL()
        do {
            let container = try ModelContainer(
                for: Magazine.self, Tutorial.self, VideoTutorial.self, News.self, Interview.self,
                configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let magazine = Magazine(name: "Weekly")
            let knots = Tutorial(title: "Knots", difficulty: 2)
            magazine.articles = [Interview(interviewing: "Ada"), knots]
            magazine.featured = knots
            context.insert(magazine)
            try context.save()
        }
        let container = try ModelContainer(
            for: Magazine.self, Tutorial.self, VideoTutorial.self, News.self, Interview.self,
            configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let magazine = try #require(try context.fetch(FetchDescriptor<Magazine>()).first)
        #expect(magazine.featured?.title == "Knots" && magazine.featured?.difficulty == 2)
        #expect(magazine.articles.map { String(describing: type(of: $0)) }.sorted() == ["Interview", "Tutorial"])
        let interviews = try context.fetch(FetchDescriptor<Article>(predicate: #Predicate { $0 is Interview }))
        #expect(interviews.map(\.title) == ["Meeting Ada"])
        #expect(container.schema.entitiesByName["Interview"]?.superentity?.name == "Article")
    }

    @Test("a subclass model holds its values before insertion, and an unsaved one is identified by its own class")
    func beforeInsertion() throws {
        let video = VideoTutorial(title: "Draft", difficulty: 1, minutes: 3)
        #expect(video.title == "Draft" && video.difficulty == 1 && video.minutes == 3 && video.host == nil)
        video.host = "Bo"
        video.difficulty = 2
        #expect(video.host == "Bo" && video.difficulty == 2)
        let asArticle: Article = video
        #expect(asArticle.persistentModelID.entityName == "VideoTutorial")
        let container = try ModelContainer(
            for: Article.self, Tutorial.self, VideoTutorial.self, News.self,
            configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(asArticle)
        try context.save()
        let fetched = try #require(try context.fetch(FetchDescriptor<VideoTutorial>()).first)
        #expect(fetched === video)
        #expect(
            Self.describe(ModelContext(container).model(for: video.persistentModelID) as? Article ?? Article(title: "?"))
                == Expected(kind: "VideoTutorial", title: "Draft", difficulty: 2, steps: [], minutes: 3, host: "Bo", comments: [])
        )
    }

    @Test("the store: one table for the hierarchy, read by NSPersistentContainer as subentities")
    func storeThroughCoreData() throws {
        let url = try temporaryStoreURL()
        _ = try Self.savedMagazine(at: url)
        let model = try #require(
            NSManagedObjectModel.makeManagedObjectModel(for: [Magazine.self, VideoTutorial.self, News.self]))
        let container = NSPersistentContainer(name: "Articles", managedObjectModel: model)
        container.persistentStoreDescriptions = [NSPersistentStoreDescription(url: url)]
        var loadError: Error?
        container.loadPersistentStores { _, error in loadError = error }
        #expect(loadError == nil)
        let request = NSFetchRequest<NSManagedObject>(entityName: "Tutorial")
        request.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
        let rows = try container.viewContext.fetch(request)
        #expect(rows.map { $0.entity.name } == ["Tutorial", "VideoTutorial"])
        #expect(rows.map { $0.value(forKey: "difficulty") as? Int64 } == [2, 4])
        #expect(rows.last?.value(forKey: "minutes") as? Int64 == 42)
    }
}

// Properties declared inside `#if`, as apps write platform-specific ones.
@Model
final class Gadget {
    var name: String
    #if os(Linux)
        var kernel: String = "linux"
    #elseif os(iOS)
        var screen: Double = 6.1
    #else
        var other: Int = 0
    #endif
    #if STRATA_NEVER_DEFINED
        var absent: Int = 0
        #Unique<Gadget>([\.absent])
    #endif
    #if os(Linux)
        #Unique<Gadget>([\.name, \.kernel])
        #Index<Gadget>([\.kernel])
    #else
        #Unique<Gadget>([\.name])
    #endif

    init(name: String) {
        self.name = name
    }
}

@Suite("Models with #if properties")
struct ConditionalPropertyTests {
    @Test("a property in an active #if clause is persisted; inactive clauses are not in the schema")
    func conditionalProperties() throws {
        #expect(Gadget.schemaMetadata.map(\.name) == ["name", "kernel"])
        let container = try ModelContainer(for: Gadget.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let gadget = Gadget(name: "router")
        gadget.kernel = "6.1"
        context.insert(gadget)
        try context.save()
        let other = ModelContext(container)
        let read = try #require(try other.fetch(FetchDescriptor<Gadget>(predicate: #Predicate { $0.kernel == "6.1" })).first)
        #expect(read.name == "router" && read.kernel == "6.1")
        #expect(container.schema.entitiesByName["Gadget"]?.attributes.map(\.name).sorted() == ["kernel", "name"])
    }

    @Test("#Unique and #Index inside #if: those of active clauses only")
    func conditionalConstraints() throws {
        let container = try ModelContainer(for: Gadget.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let entity = try #require(container.schema.entitiesByName["Gadget"])
        #expect(entity.uniquenessConstraints == [["name", "kernel"]])
        #expect(entity.indices == [["kernel"]])
        // The constraint holds: a second gadget with the same name and kernel replaces the first.
        let context = ModelContext(container)
        context.insert(Gadget(name: "router"))
        context.insert(Gadget(name: "router"))
        let other = Gadget(name: "router")
        other.kernel = "6.1"
        context.insert(other)
        try context.save()
        let kernels = try ModelContext(container).fetch(FetchDescriptor<Gadget>(sortBy: [SortDescriptor(\.kernel)])).map(\.kernel)
        #expect(kernels == ["6.1", "linux"])
    }
}

import Foundation
import Testing

@testable import Strata

/// `IndexPath`'s table and collection view members, which UIKit gives apps and Strata gives
/// them on Linux.
@Suite struct IndexPathTableViewTests {
    @Test func rowAndItemInitializersPutTheSectionFirst() {
        let row = IndexPath(row: 4, section: 2)
        #expect(Array(row) == [2, 4])
        #expect(row.section == 2)
        #expect(row.row == 4)
        #expect(row.item == 4)
        let item = IndexPath(item: 7, section: 1)
        #expect(Array(item) == [1, 7])
        #expect(item == IndexPath(indexes: [1, 7]))
        #expect(item == IndexPath(row: 7, section: 1))
    }

    @Test func settersChangeTheirIndex() {
        var path = IndexPath(row: 0, section: 0)
        path.section = 3
        path.row = 5
        #expect(Array(path) == [3, 5])
        path.item = 9
        #expect(path.row == 9)
        #expect(Array(path) == [3, 9])
    }

    @Test func indexPathsOrderBySectionThenRow() {
        let paths = [IndexPath(row: 2, section: 1), IndexPath(row: 9, section: 0), IndexPath(row: 1, section: 1)]
        #expect(paths.sorted() == [IndexPath(row: 9, section: 0), IndexPath(row: 1, section: 1), IndexPath(row: 2, section: 1)])
    }
}

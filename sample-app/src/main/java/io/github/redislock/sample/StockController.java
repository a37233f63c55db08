package io.github.redislock.sample;

import java.util.Map;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /stock/{item}?amount=N} restocks, {@code POST /stock/{item}/buy} buys one,
 * {@code GET /stock/{item}} tells what is left.
 */
@RestController
class StockController {

	private final StockService stock;

	StockController(StockService stock) {
		this.stock = stock;
	}

	@PostMapping("/stock/{item}")
	Map<String, Object> restock(@PathVariable String item, @RequestParam int amount) {
		this.stock.restock(item, amount);
		return available(item);
	}

	@PostMapping("/stock/{item}/buy")
	ResponseEntity<Map<String, Object>> buy(@PathVariable String item) {
		boolean bought = this.stock.buy(item);
		return ResponseEntity.status(bought ? 200 : 409).body(Map.of("item", item, "bought", bought));
	}

	@GetMapping("/stock/{item}")
	Map<String, Object> available(@PathVariable String item) {
		return Map.of("item", item, "available", this.stock.available(item));
	}

}

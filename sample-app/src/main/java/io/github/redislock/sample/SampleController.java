package io.github.redislock.sample;

import java.time.LocalDate;
import java.util.List;
import java.util.Map;

import org.springframework.format.annotation.DateTimeFormat;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /sales/{item}?quantity=N} starts a sale, {@code POST
 * /sales/{item}/buy?buyer=x} buys one (409 when sold out), {@code GET /sales/{item}}
 * shows stock and fulfilled orders; {@code POST /lottery/draw} draws today's winners,
 * {@code GET /lottery/{day}} lists them.
 */
@RestController
class SampleController {

	private final FlashSale sale;

	private final Checkout checkout;

	private final Fulfilment fulfilment;

	private final Lottery lottery;

	SampleController(FlashSale sale, Checkout checkout, Fulfilment fulfilment, Lottery lottery) {
		this.sale = sale;
		this.checkout = checkout;
		this.fulfilment = fulfilment;
		this.lottery = lottery;
	}

	@PostMapping("/sales/{item}")
	Map<String, Object> start(@PathVariable String item, @RequestParam int quantity) {
		this.sale.start(item, quantity);
		return status(item);
	}

	@PostMapping("/sales/{item}/buy")
	ResponseEntity<Map<String, Object>> buy(@PathVariable String item, @RequestParam String buyer) {
		String orderId = this.checkout.checkout(item, buyer);
		return (orderId != null) ? ResponseEntity.ok(Map.of("item", item, "order", orderId))
				: ResponseEntity.status(409).body(Map.of("item", item, "soldOut", true));
	}

	@GetMapping("/sales/{item}")
	Map<String, Object> status(@PathVariable String item) {
		return Map.of("item", item, "left", this.sale.left(item), "fulfilled", this.fulfilment.fulfilled(item),
				"duplicates", this.fulfilment.duplicates(item), "peakConcurrentCheckouts",
				this.checkout.peakConcurrent());
	}

	@PostMapping("/lottery/draw")
	Map<String, Object> draw() {
		LocalDate today = LocalDate.now();
		List<String> drawn = this.lottery.draw(today);
		return Map.of("day", today.toString(), "drawnNow", (drawn != null) ? drawn : List.of(), "winners",
				this.lottery.winners(today));
	}

	@GetMapping("/lottery/{day}")
	Map<String, Object> winners(@PathVariable @DateTimeFormat(iso = DateTimeFormat.ISO.DATE) LocalDate day) {
		return Map.of("day", day.toString(), "winners", this.lottery.winners(day));
	}

}
